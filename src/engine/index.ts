export {
  type CollapseCall,
  type Collapsed,
  type CollapseOptions,
  CollapseOptionsSchema,
  collapse,
  collapseBudget,
  collapseText,
  DEFAULT_COLLAPSE_MAX_TOKENS,
  /** @deprecated Spillway's own outputs are the collapse's: import them from spillway/collapse. */
  isOwnOutput,
  /** @deprecated As isOwnOutput. */
  recordOwnOutput,
} from '../collapse/index.js';
/** @deprecated The call keys moved to spillway/text; these names stay for old imports. */
export { type CallKey, callKeyOf, READ_TOOLS } from '../text/index.js';
export { Calibration, type CalibrationSample } from './calibration.js';
export { callsAsSent, restoreInput } from './clear-inputs.js';
export {
  type CollapsedOutput,
  collapseOutput,
  collapseWithin,
  SOURCE_MAX_TOKENS,
} from './collapse-output.js';
export {
  buildStage,
  type EngineConfig,
  EngineConfigSchema,
  engineConfigOf,
  PRESET_NAMES,
  PRESETS,
  type PresetName,
  type ResolvedEngineConfig,
  resolveEngineConfig,
  type StageSpec,
  StageSpecSchema,
  type WithEngineConfig,
} from './config.js';
export {
  CACHE_TTL_MS,
  ConversationEngine,
  type ConversationOptions,
  type ConversationSettings,
  type TurnInput,
  type TurnOutcome,
} from './conversation.js';
export {
  DEFAULT_PROTECT_RECENT,
  fitWindow,
  type WindowFit,
  type WindowRequest,
} from './fit-window.js';
export {
  type PipelineConfig,
  PipelineConfigSchema,
  type PipelineRun,
  type ResolvedPipeline,
  resolvePipeline,
  runPipeline,
} from './former-names.js';
export { FrozenDecisions, type FrozenEntry } from './frozen.js';
export { addTokens, type RecentDecision, type RequestFigures, requestFigures } from './request-figures.js';
export type { ResultOutcome } from './run-item.js';
export { type RunOptions, runStages, type StagesRun } from './runner.js';
export { addStats, type StageStats } from './stage-stats.js';
export {
  collapseStage,
  type DedupOptions,
  DedupOptionsSchema,
  dedupStage,
  formatStage,
  type LinecapOptions,
  LinecapOptionsSchema,
  linecapStage,
  type MaskOptions,
  MaskOptionsSchema,
  maskStage,
  STAGES,
  type SupersedeOptions,
  SupersedeOptionsSchema,
  supersedeStage,
  textcleanStage,
} from './stages/index.js';
export { type BudgetPins, type ToolOverride, ToolOverrideSchema, toolOverride } from './tool-overrides.js';
export * from './types.js';
export { type GuardCandidate, type GuardPlan, planWindowGuard, windowCap } from './window-guard.js';
