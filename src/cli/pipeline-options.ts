import { type PipelineConfig, PRESET_NAMES, type ResolvedPipeline } from '../engine/index.js';
import { SpillwayError } from '../errors.js';
import { readConfigFile } from './io.js';

export const PIPELINE_OPTIONS = { preset: { type: 'string' }, config: { type: 'string' } } as const;

export const PIPELINE_HELP = `  --preset P     ${PRESET_NAMES.join(', ')} (default balanced)
  --config FILE  a JSON config: {"preset": ...} or {"stages": [...], "tools": {...}}`;

/**
 * The pipeline from `--config FILE` and `--preset P` (a preset given on the command line wins
 * over the file's). Errors name the file and what is wrong in it.
 *
 * @example
 * const pipeline = await pipelineFromOptions({ preset: 'safe' });
 */
export async function pipelineFromOptions(values: {
  preset?: string;
  config?: string;
}): Promise<ResolvedPipeline> {
  let config: Record<string, unknown> = {};
  if (values.config !== undefined) config = (await readConfigFile(values.config)) as Record<string, unknown>;
  if (values.preset !== undefined) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) config = {};
    config = { ...config, preset: values.preset };
    if ('stages' in config && values.preset !== undefined) delete config.stages;
  }
  // The stages and their schemas load here, not with the CLI: the proxy listens before this.
  const { resolvePipeline } = await import('../engine/config.js');
  try {
    return resolvePipeline(config as PipelineConfig);
  } catch (err) {
    if (SpillwayError.isInstance(err) && values.config)
      throw new SpillwayError(err.code, `${values.config}: ${err.message}`);
    throw err;
  }
}
