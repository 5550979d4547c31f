export { createExpandServer, EXPAND_DESCRIPTION, EXPAND_TOOL } from './expand-tool.js';
export { handleMcpRequest, mcpHttpHandler } from './http.js';
export { serveStdio } from './stdio.js';
