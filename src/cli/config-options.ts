import { type EngineConfig, PRESET_NAMES, type ResolvedEngineConfig } from '../engine/index.js';
import { SpillwayError } from '../errors.js';
import { readConfigFile } from './io.js';

export const CONFIG_OPTIONS = { preset: { type: 'string' }, config: { type: 'string' } } as const;

export const CONFIG_HELP = `  --preset P     ${PRESET_NAMES.join(', ')} (default balanced)
  --config FILE  a JSON config: {"preset": ...} or {"stages": [...], "tools": {...}}`;

/**
 * The engine config from `--config FILE` and `--preset P` (a preset given on the command line wins
 * over the file's). Errors name the file and what is wrong in it.
 *
 * @example
 * const config = await configFromOptions({ preset: 'safe' });
 */
export async function configFromOptions(values: {
  preset?: string;
  config?: string;
}): Promise<ResolvedEngineConfig> {
  let config: Record<string, unknown> = {};
  if (values.config !== undefined) config = (await readConfigFile(values.config)) as Record<string, unknown>;
  if (values.preset !== undefined) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) config = {};
    config = { ...config, preset: values.preset };
    if ('stages' in config && values.preset !== undefined) delete config.stages;
  }
  // The stages and their schemas load here, not with the CLI: the proxy listens before this.
  const { resolveEngineConfig } = await import('../engine/config.js');
  try {
    return resolveEngineConfig(config as EngineConfig);
  } catch (err) {
    if (SpillwayError.isInstance(err) && values.config)
      throw new SpillwayError(err.code, `${values.config}: ${err.message}`);
    throw err;
  }
}
