import { z } from 'zod';
import { parseConfig } from '../config-schema.js';
import { SpillwayError } from '../errors.js';
import { ModelPriceSchema, type Prices, PricesSchema } from '../formats/index.js';
import { isRecord } from '../text/index.js';
import { getTokenizer, TOKENIZER_NAMES, type Tokenizer } from '../text/tokenizers/index.js';
import { STAGES, type StageSpecObject, StageSpecSchema } from './stages/index.js';
import { type ToolOverride, ToolOverrideSchema } from './tool-overrides.js';
import { PRESET_NAMES, type PresetName, STAGE_NAMES, type Stage, type StageName } from './types.js';

export { STAGES, type StageSpecObject, StageSpecSchema } from './stages/index.js';
export { PRESET_NAMES, type PresetName } from './types.js';

/** A stage in a config: its name, or its name with options. */
export type StageSpec = StageName | StageSpecObject;

/**
 * The engine config, as a config file holds it: a preset, or its own `stages` (replacing the
 * preset's list); `tools` sets per-tool overrides.
 */
export const EngineConfigSchema = z.strictObject({
  preset: z.enum(PRESET_NAMES).optional(),
  stages: z.array(z.union([z.enum(STAGE_NAMES), StageSpecSchema])).optional(),
  tokenizer: z.enum(TOKENIZER_NAMES).optional(),
  tools: z.record(z.string(), ToolOverrideSchema).optional(),
  /** Model name prefixes to input prices (USD per million tokens), over the built-in table. */
  prices: PricesSchema.optional(),
});
/**
 * @example
 * const config: EngineConfig = { preset: 'balanced', tools: { Read: { maxTokens: 4000 }, 'mcp__*': { exempt: true } } };
 */
export type EngineConfig = z.infer<typeof EngineConfigSchema>;

/** The engine config resolved: its stages built, its tokenizer, tool overrides and prices. */
export interface ResolvedEngineConfig {
  readonly preset: PresetName | 'custom';
  readonly stages: readonly Stage[];
  readonly specs: readonly Readonly<StageSpecObject>[];
  readonly tokenizer: Tokenizer;
  readonly tools: Readonly<Record<string, Readonly<ToolOverride>>>;
  /** The config's prices (over the built-in table; see formats/prices.ts). */
  readonly prices: Readonly<Prices>;
}

/** The presets (docs/internals.md has their table): lossless stages first, the fallback last. */
export const PRESETS: Readonly<Record<PresetName, readonly StageSpec[]>> = {
  off: [],
  safe: ['textclean', 'format', { name: 'collapse', maxTokens: 3000, keepReads: true }],
  balanced: [
    'textclean',
    'format',
    'dedup',
    'rerun',
    'linecap',
    { name: 'collapse', maxTokens: 2000, keepReads: true },
    'supersede',
    // Observation masking keeps the 10 newest results (The Complexity Trap, 2025), in batches of 10.
    { name: 'mask', keepRecent: 10, batch: 10 },
  ],
  aggressive: [
    'textclean',
    'format',
    'dedup',
    'rerun',
    'linecap',
    { name: 'collapse', maxTokens: 1000 },
    'supersede',
    // Old Write/Edit contents fill long sessions' windows by themselves (see clear-inputs.ts).
    { name: 'mask', inputs: true },
  ],
};

function bad(message: string): SpillwayError {
  return new SpillwayError('SPILLWAY_BAD_CONFIG', message);
}

function oneOf(what: string, value: unknown, allowed: readonly string[], plural: string): void {
  if (typeof value !== 'string' || !allowed.includes(value))
    throw bad(`${what} ${JSON.stringify(value)}; ${plural}: ${allowed.join(', ')}`);
}

function parseSpec(spec: unknown, index: number): StageSpecObject {
  const where = `stages[${index}]`;
  const obj = typeof spec === 'string' ? { name: spec } : spec;
  if (!isRecord(obj)) throw bad(`${where}: expected a stage name or {"name": ..., options}`);
  oneOf(`${where}: unknown stage`, obj.name, STAGE_NAMES, 'stages');
  const name = obj.name as StageName;
  const { name: _, ...options } = obj;
  const schema = z.strictObject({ name: z.literal(name), ...STAGES[name].schema.shape });
  return parseConfig(schema, { name, ...options }, `${where} (${name})`) as StageSpecObject;
}

/**
 * Builds one stage from its spec.
 *
 * @example
 * buildStage({ name: 'collapse', maxTokens: 1500 });
 */
export function buildStage(spec: StageSpecObject): Stage {
  const { name, ...options } = spec;
  return (STAGES[name].build as (options: object) => Stage)(options);
}

/**
 * A stage's options as the stages after it make sense of them: linecap leaves JSON to a
 * collapse that follows it (unless the config says otherwise).
 */
function withLaterStagesDefaults(spec: StageSpecObject, after: readonly StageSpecObject[]): StageSpecObject {
  if (spec.name !== 'linecap' || spec.leaveJson !== undefined) return spec;
  return { ...spec, leaveJson: after.some((s) => s.name === 'collapse') };
}

/**
 * The options an engine config gave one of its stages, or undefined when it does not run that stage:
 * how the engine's own steps (the window guard, clearing) follow the stages' settings.
 *
 * @example
 * stageOptions(resolveEngineConfig({ preset: 'safe' }), 'collapse')?.maxTokens; // 3000
 */
export function stageOptions<N extends StageName>(
  config: Pick<ResolvedEngineConfig, 'specs'>,
  name: N,
): Extract<StageSpecObject, { name: N }> | undefined {
  return config.specs.find((s): s is Extract<StageSpecObject, { name: N }> => s.name === name);
}

/**
 * Validates a configuration (unknown keys and bad values are errors that say what is allowed)
 * and resolves it to frozen stages. No config means the `balanced` preset.
 *
 * @example
 * resolveEngineConfig({ preset: 'safe' }).stages.map((s) => s.name); // ['textclean', 'format', 'collapse']
 * resolveEngineConfig({ stages: ['textclean', { name: 'collapse', maxTokens: 500 }] });
 */
export function resolveEngineConfig(config: EngineConfig | unknown = {}): ResolvedEngineConfig {
  if (!isRecord(config)) throw bad('config must be a JSON object');
  // Key by key, so each message names the key that is wrong and what it may be.
  const top = parseConfig(
    z.strictObject({
      preset: z.unknown().optional(),
      stages: z.unknown().optional(),
      tokenizer: z.unknown().optional(),
      tools: z.unknown().optional(),
      prices: z.unknown().optional(),
    }),
    config,
    'config',
  );
  const preset = top.preset ?? 'balanced';
  oneOf('config: unknown preset', preset, PRESET_NAMES, 'presets');
  if (top.stages !== undefined && !Array.isArray(top.stages)) throw bad('config: "stages" must be a list');
  const listed = (top.stages as unknown[] | undefined) ?? PRESETS[preset as PresetName];
  const specs = listed.map(parseSpec);
  const tokenizerName = top.tokenizer ?? 'o200k';
  if (typeof tokenizerName !== 'string' || !(TOKENIZER_NAMES as readonly string[]).includes(tokenizerName))
    throw bad(
      `config: unknown tokenizer ${JSON.stringify(tokenizerName)}; use one of: ${TOKENIZER_NAMES.join(', ')}`,
    );
  const tools: Record<string, ToolOverride> = {};
  if (top.tools !== undefined) {
    if (!isRecord(top.tools))
      throw bad('config: "tools" must be an object of tool name -> {exempt?, maxTokens?}');
    for (const [tool, value] of Object.entries(top.tools)) {
      tools[tool] = Object.freeze(
        parseConfig(ToolOverrideSchema, value, `tools["${tool}"]`, '{exempt?, maxTokens?}'),
      );
    }
  }
  const prices: Prices = Object.create(null);
  if (top.prices !== undefined) {
    if (!isRecord(top.prices))
      throw bad('config: "prices" must be an object of model name prefix -> {input, cacheRead, cacheWrite}');
    for (const [model, value] of Object.entries(top.prices))
      prices[model] = parseConfig(
        ModelPriceSchema,
        value,
        `prices["${model}"]`,
        '{input, cacheRead, cacheWrite} in USD per million tokens',
      );
  }
  return Object.freeze({
    preset: top.stages === undefined ? (preset as PresetName) : 'custom',
    stages: Object.freeze(
      specs.map((spec, i) => buildStage(withLaterStagesDefaults(spec, specs.slice(i + 1)))),
    ),
    specs: Object.freeze(specs.map((s) => Object.freeze(s))),
    tokenizer: getTokenizer(tokenizerName),
    tools: Object.freeze(tools),
    prices: Object.freeze(prices),
  });
}

/**
 * Where options take the engine config: `config`, or `pipeline`, its former name (`config` wins
 * when both are given).
 *
 * @example
 * const options: WithEngineConfig<ResolvedEngineConfig> = { config: resolveEngineConfig() };
 */
export type WithEngineConfig<T> =
  | {
      /** The engine config: its stages, tokenizer, tool overrides and prices. */
      config: T;
      /** @deprecated The former name of `config`, which wins when both are given. */
      pipeline?: T | undefined;
    }
  | {
      config?: undefined;
      /** @deprecated The former name of `config`. */
      pipeline: T;
    };

/**
 * The engine config options carry, under its name or its former one (the name wins).
 *
 * @example
 * engineConfigOf({ pipeline: resolveEngineConfig() }).preset; // 'balanced'
 */
export function engineConfigOf<T>(options: WithEngineConfig<T>): T {
  return options.config ?? (options.pipeline as T);
}
