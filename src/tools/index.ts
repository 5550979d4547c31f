export { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from './expand-tool.js';
export { shortenToolResult } from './shorten-result.js';
