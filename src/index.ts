/**
 * spillway: keeps oversized tool results from flooding an LLM agent's context, and loses
 * nothing doing it. The root export holds what a library user needs: collapse, snip and token counting,
 * model windows, the stores with cap/recall/stash, the engine with its stages,
 * content blocks and sessions, and the proxy. Each layer has its own subpath with the rest:
 * `spillway/text`, `spillway/store`, `spillway/formats`, `spillway/collapse`, `spillway/engine`,
 * `spillway/session`, `spillway/replay`, `spillway/proxy`, `spillway/mcp`.
 *
 * @example
 * import { snip, getTokenizer } from 'spillway';
 * const short = snip(hugeLog, { budget: 2000, unit: 'tokens' });
 * getTokenizer('o200k').count(short) <= 2000; // true
 */

export { type CollapseCall, type Collapsed, collapse } from './collapse/index.js';
export {
  ConversationEngine,
  type ConversationOptions,
  type EngineConfig,
  FrozenDecisions,
  /** @deprecated Use `EngineConfig`. */
  type PipelineConfig,
  PRESETS,
  type PresetName,
  type ResolvedEngineConfig,
  /** @deprecated Use `ResolvedEngineConfig`. */
  type ResolvedPipeline,
  resolveEngineConfig,
  /** @deprecated Use `resolveEngineConfig`. */
  resolvePipeline,
  /** @deprecated Use `runStages`. */
  runPipeline,
  runStages,
  type TurnInput,
  type TurnOutcome,
} from './engine/index.js';
export { SpillwayError, type SpillwayErrorCode } from './errors.js';
export { type ProxyOptions, type RunningProxy, startProxy } from './proxy/index.js';
export {
  collapsePruner,
  contentPruner,
  enginePruner,
  type Pruner,
  /** @deprecated Use `enginePruner`. */
  pipelinePruner,
  pruneSession,
  Session,
} from './session/index.js';
export {
  applyRetention,
  type CapOptions,
  type CapResult,
  cap,
  expand,
  FileStore,
  MemoryStore,
  type RecallPage,
  RedisClusterStore,
  RedisStore,
  recall,
  recallAll,
  type Store,
  stash,
} from './store/index.js';
export {
  type Content,
  type ContentBlock,
  formatTokenCount,
  getTokenizer,
  lookupModelLimit,
  type ModelLimit,
  measureContent,
  type PruneConfig,
  pruneContent,
  type SnipOptions,
  snip,
  snipDetailed,
  type Tokenizer,
  type TokenizerName,
  type ToolResult,
} from './text/index.js';
