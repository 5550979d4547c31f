export {
  callExpandTool,
  EXPAND_DESCRIPTION,
  EXPAND_SEARCH_HINT,
  EXPAND_TOOL,
  EXPAND_TOOL_DEFINITION,
  type ExpandToolResult,
} from './expand-tool.js';
export { type ShortenResultOptions, shortenToolResult } from './shorten-result.js';
export {
  type ShortenStructuredOptions,
  shortenStructured,
  shortenStructuredContent,
} from './structured-content.js';
