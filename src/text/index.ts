export * from './blocks.js';
export { boundedMemo } from './bounded-memo.js';
export { type CallKey, callKeyOf, cleanPath, READ_TOOLS, samePath } from './call-keys.js';
export { contentDigest, contentHash, type Original, originalOf, shortHash, stashId } from './content-hash.js';
export { lineCutMark, listingCutMark, stringCutMark } from './cut-marks.js';
export { formatTokenCount } from './format-token-count.js';
export { graphemeLength } from './grapheme.js';
export { arrayItemSpans, arrayItemSpansAfter, type JsonEdit, spliceJson, valueBytes } from './json-splice.js';
export { replaceJsonStrings } from './json-strings.js';
export { asRecord, isRecord } from './json-values.js';
export {
  clientStashNote,
  collapseCharMarker,
  cutNoteIds,
  dedupPointer,
  diffCompactedHeader,
  hasMarker,
  INPUT_CLEARED_PREFIX,
  inputClearedMarker,
  jsonCompactedHeader,
  linecapMarker,
  lineGapMarker,
  MARKER_TAG,
  MASK_PREFIX,
  markerIds,
  markerTag,
  maskPlaceholder,
  parseSnipMarker,
  RERUN_SAME,
  recallIdOf,
  rerunHeader,
  rerunSameLines,
  STASH_FAILED_NOTE,
  SUPERSEDED_PREFIX,
  snipMarker,
  supersededPlaceholder,
  type Unit,
  WITHOUT_RECALL_EXTRA,
  withoutRecall,
} from './markers.js';
export {
  codePointCeil,
  codePointFloor,
  codePointLength,
  decodeUtf8,
  utf8Bytes,
  utf8Length,
} from './measure.js';
export { budgetProblem, MIN_BUDGET } from './min-budget.js';
export { DEFAULT_OUTPUT_TOKENS, inputLimit, lookupModelLimit, type ModelLimit } from './model-limit.js';
export { DEFAULT_MODEL_WINDOW, MODEL_WINDOWS } from './model-windows.js';
export { OutputCapture } from './output-capture.js';
export {
  DEFAULT_PRUNE_CONFIG,
  measureContent,
  type PruneConfig,
  pruneContent,
  resolvePruneConfig,
} from './prune-content.js';
export { type SnipOptions, type SnipResult, snip, snipDetailed } from './snip.js';
export { storedText } from './stored-text.js';
export * from './tokenizers/index.js';
export type { ToolCallInput } from './tool-call.js';
export type { ToolResult } from './tool-result.js';
