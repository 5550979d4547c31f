export { createExpandServer } from './expand-server.js';
export { callExpandTool, EXPAND_DESCRIPTION, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from './expand-tool.js';
export { handleMcpRequest, mcpHttpHandler } from './http.js';
export { answerMessage, serveStdio } from './stdio.js';
