export * from './blocks.js';
export { formatTokenCount } from './format-token-count.js';
export { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './grapheme.js';
export {
  collapseCharMarker,
  collapseLineMarker,
  dedupPointer,
  hasMarker,
  linecapMarker,
  MARKER_TAG,
  markerIds,
  markerTag,
  maskPlaceholder,
  parseSnipMarker,
  pruneMarker,
  snipMarker,
  type Unit,
} from './markers.js';
export {
  codePointLength,
  codePointPrefixEnd,
  codePointSuffixStart,
  graphemeLength,
  utf8Length,
  utf8PrefixEnd,
  utf8SuffixStart,
} from './measure.js';
export { lookupModelLimit, type ModelLimit, normaliseModelName } from './model-limit.js';
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
export { type Measure, measureFor } from './units.js';
