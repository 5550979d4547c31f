export { renderHtmlReport } from './html-report.js';
export { READERS, readTranscript } from './readers/index.js';
export {
  type ConversationReplay,
  type ResultRecord,
  replayConversation,
} from './replay-conversation.js';
export { PRICE_MODEL, type ReplayCost, replayCost, requestCost } from './replay-cost.js';
export type { ReplayOptions, ReplaySettings } from './replay-options.js';
export { type FileReport, type ReplayReport, ReportBuilder, type Totals } from './report.js';
export { renderSummary } from './summary.js';
export {
  type Conversation,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
  type TranscriptReader,
} from './transcript.js';
