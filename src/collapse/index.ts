// Event-loop yielding is every layer's (src/breathe.ts); spillway/collapse keeps offering it.
export { breathe, breatheBefore, SLICE_BYTES } from '../breathe.js';
export { largestFitting } from './bisect.js';
export { collapseBlocks, shareBudget } from './blocks.js';
export { CHAR_FLOOR } from './char-window.js';
export { type CollapseCall, type Collapsed, collapse } from './collapse.js';
export type { OutputDecision, OutputDecline } from './decision.js';
export { type CollapseExplanation, explainCollapse } from './explain.js';
export { RARITY_BELOW } from './important.js';
export { isCompactableJson } from './json.js';
export {
  type CollapseOptions,
  CollapseOptionsSchema,
  collapseBudget,
  DEFAULT_COLLAPSE_MAX_TOKENS,
  DEFAULT_READ_MAX_TOKENS,
  DEFAULT_WINDOW_LINES,
} from './options.js';
export {
  type CollapsedContent,
  type CollapsedOutput,
  type CollapseOutputOptions,
  collapseContent,
  collapseOutput,
  collapseWithin,
  decideOutput,
  type OutputCall,
  type OutputDeps,
  SOURCE_MAX_TOKENS,
} from './output.js';
export { isOwnOutput, recordOwnOutput } from './own-outputs.js';
export {
  type CollapseDecline,
  type CollapseOutcome,
  type CollapseTextOptions,
  type CollapseWindow,
  collapseText,
} from './text.js';
