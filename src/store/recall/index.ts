export {
  DEFAULT_EXPAND_TOKENS,
  DEFAULT_GREP_CONTEXT,
  type ExpandRequest,
  expand,
  MAX_GREP_CONTEXT,
  parseLineRange,
} from './expand.js';
export { RECALL_PAGE_BYTES, type RecallOptions, type RecallPage, recall, recallAll } from './recall.js';
export { recallTokenPath, userRecallToken } from './recall-token.js';
