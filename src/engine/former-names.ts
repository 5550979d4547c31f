/**
 * The engine's names from before "pipeline" left the code: the engine config was called the
 * pipeline. They stay for old imports, each the same value or type as its new name.
 */
import {
  type EngineConfig,
  EngineConfigSchema,
  type ResolvedEngineConfig,
  resolveEngineConfig,
} from './config.js';
import { runStages, type StagesRun } from './runner.js';

/**
 * @deprecated Use `EngineConfigSchema` (the same schema).
 *
 * @example
 * PipelineConfigSchema.parse({ preset: 'safe' });
 */
export const PipelineConfigSchema = EngineConfigSchema;

/**
 * @deprecated Use `EngineConfig` (the same type).
 *
 * @example
 * const config: PipelineConfig = { preset: 'safe' };
 */
export type PipelineConfig = EngineConfig;

/**
 * @deprecated Use `ResolvedEngineConfig` (the same type).
 *
 * @example
 * const config: ResolvedPipeline = resolveEngineConfig();
 */
export type ResolvedPipeline = ResolvedEngineConfig;

/**
 * @deprecated Use `resolveEngineConfig` (the same function).
 *
 * @example
 * resolvePipeline({ preset: 'safe' }).stages.map((s) => s.name); // ['textclean', 'format', 'collapse']
 */
export const resolvePipeline: typeof resolveEngineConfig = resolveEngineConfig;

/**
 * @deprecated Use `StagesRun` (the same type).
 *
 * @example
 * const run: PipelineRun = await runStages(results, stages, context);
 */
export type PipelineRun = StagesRun;

/**
 * @deprecated Use `runStages` (the same function).
 *
 * @example
 * const run = await runPipeline(results, resolveEngineConfig().stages, { store, tokenizer, cachedPrefix: 0 });
 */
export const runPipeline: typeof runStages = runStages;
