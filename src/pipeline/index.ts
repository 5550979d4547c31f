export { Calibration, type CalibrationSample } from './calibration.js';
export { type CallKey, callKeyOf, READ_TOOLS } from './call-keys.js';
export { type CollapseCall, type Collapsed, collapse } from './collapse.js';
export {
  buildStage,
  type PipelineConfig,
  PipelineConfigSchema,
  PRESET_NAMES,
  PRESETS,
  type PresetName,
  type ResolvedPipeline,
  resolvePipeline,
  type StageSpec,
  StageSpecSchema,
} from './config.js';
export {
  CACHE_TTL_MS,
  ConversationEngine,
  type ConversationOptions,
  type TurnInput,
  type TurnOutcome,
} from './conversation.js';
export {
  DEFAULT_PROTECT_RECENT,
  fitWindow,
  type WindowFit,
  type WindowRequest,
} from './fit-window.js';
export { FrozenDecisions, type FrozenEntry } from './frozen.js';
export type { ResultOutcome } from './run-item.js';
export { type PipelineRun, type RunOptions, runPipeline } from './runner.js';
export { addStats, type StageStats } from './stage-stats.js';
export {
  type CollapseOptions,
  CollapseOptionsSchema,
  collapseBudget,
  collapseStage,
  collapseText,
  DEFAULT_COLLAPSE_MAX_TOKENS,
} from './stages/collapse/index.js';
export { type DedupOptions, DedupOptionsSchema, dedupStage } from './stages/dedup.js';
export { formatStage } from './stages/format.js';
export { type LinecapOptions, LinecapOptionsSchema, linecapStage } from './stages/linecap.js';
export { type MaskOptions, MaskOptionsSchema, maskStage } from './stages/mask.js';
export { type SupersedeOptions, SupersedeOptionsSchema, supersedeStage } from './stages/supersede.js';
export { textcleanStage } from './stages/textclean.js';
export { type ToolOverride, ToolOverrideSchema, toolOverride } from './tool-overrides.js';
export * from './types.js';
export { type GuardCandidate, type GuardPlan, planWindowGuard } from './window-guard.js';
