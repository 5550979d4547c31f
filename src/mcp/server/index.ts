export { handleMcpRequest, mcpHttpHandler } from './http.js';
export {
  type Answer,
  answerExpandCall,
  answerMessage,
  isRequest,
  PROTOCOL_VERSIONS,
  rpcError,
} from './server.js';
export { serveStdio } from './stdio.js';
