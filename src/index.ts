/**
 * spillway's public API, layer by layer: text (measures, cuts, tokenizers, model windows, snip,
 * markers, blocks), store (file, memory and Redis stores, cap, recall, stash, retention),
 * formats (request adapters), pipeline (stages, runner, presets, frozen decisions), session
 * (append-only log, pruneSession), replay (transcript readers, reports), proxy and mcp.
 *
 * @example
 * import { snip, getTokenizer } from 'spillway';
 * const short = snip(hugeLog, { budget: 2000, unit: 'tokens' });
 * getTokenizer('o200k').count(short) <= 2000; // true
 */
export { SpillwayError, type SpillwayErrorCode } from './errors.js';
export * from './formats/index.js';
export { isExpandTool } from './formats/shared.js';
export * from './mcp/index.js';
export * from './pipeline/index.js';
export * from './proxy/index.js';
export { renderHtmlReport } from './replay/html-report.js';
export { READERS, readTranscript } from './replay/readers/index.js';
export {
  type ConversationReplay,
  type ReplayOptions,
  type ResultRecord,
  replayConversation,
} from './replay/replay-conversation.js';
export {
  type FileReport,
  PRICE_MODEL,
  type ReplayReport,
  ReportBuilder,
  requestCost,
  type Totals,
} from './replay/report.js';
export { renderSummary } from './replay/summary.js';
export {
  type Conversation,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
  type TranscriptReader,
  type TranscriptResult,
} from './replay/transcript.js';
export * from './session/index.js';
export * from './store/index.js';
export * from './text/index.js';
