export { callExpandTool, EXPAND_DESCRIPTION, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from './expand-tool.js';
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
