export {
  buildStage,
  collapseBudget,
  type PipelineConfig,
  PRESET_NAMES,
  PRESETS,
  type PresetName,
  type ResolvedPipeline,
  resolvePipeline,
  type StageSpec,
} from './config.js';
export { FrozenDecisions, type FrozenEntry } from './frozen.js';
export { contentHash, type Original, originalOf } from './original.js';
export {
  addStats,
  type PipelineRun,
  type ResultOutcome,
  type RunOptions,
  runPipeline,
  type StageStats,
  type ToolOverride,
  toolOverride,
} from './runner.js';
export {
  CHAR_FLOOR,
  type CollapseOptions,
  type CollapseOutcome,
  collapseStage,
  collapseText,
} from './stages/collapse.js';
export { type DedupOptions, dedupStage } from './stages/dedup.js';
export { compactJson, formatStage } from './stages/format.js';
export { isProtectedLine, type LinecapOptions, linecapStage, NEVER_TRUNCATE } from './stages/linecap.js';
export { type MaskOptions, maskStage } from './stages/mask.js';
export { cleanTerminalText, textcleanStage } from './stages/textclean.js';
export * from './types.js';
