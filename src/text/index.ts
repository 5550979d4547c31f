export * from './blocks.js';
export { contentHash, type Original, originalOf, stashId } from './content-hash.js';
export { formatTokenCount } from './format-token-count.js';
export { graphemeLength } from './grapheme.js';
export { hasMarker, MARKER_TAG, markerIds, parseSnipMarker, type Unit } from './markers.js';
export { codePointLength, utf8Length } from './measure.js';
export { lookupModelLimit, type ModelLimit } from './model-limit.js';
export { DEFAULT_MODEL_WINDOW, MODEL_WINDOWS } from './model-windows.js';
export {
  DEFAULT_PRUNE_CONFIG,
  measureContent,
  type PruneConfig,
  pruneContent,
  resolvePruneConfig,
} from './prune-content.js';
export { type SnipOptions, type SnipResult, snip, snipDetailed } from './snip.js';
export * from './tokenizers/index.js';
export type { ToolResult } from './tool-result.js';
