import { SpillwayError } from '../errors.js';
import { getTokenizer, isTokenizerName, TOKENIZER_NAMES, type Tokenizer } from '../text/tokenizers/index.js';
import { type ToolOverride, toolOverride } from './runner.js';
import { type CollapseOptions, collapseStage } from './stages/collapse.js';
import { type DedupOptions, dedupStage } from './stages/dedup.js';
import { formatStage } from './stages/format.js';
import { type LinecapOptions, linecapStage } from './stages/linecap.js';
import { type MaskOptions, maskStage } from './stages/mask.js';
import { textcleanStage } from './stages/textclean.js';
import { STAGE_NAMES, type Stage, type StageName } from './types.js';

export const PRESET_NAMES = ['off', 'safe', 'balanced', 'aggressive'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** A stage in a config: its name, or its name with options. */
export type StageSpec = StageName | ({ name: StageName } & Record<string, unknown>);

/**
 * A pipeline configuration, as a config file holds it. `stages` replaces the preset's list;
 * `tools` sets per-tool overrides.
 *
 * @example
 * const config: PipelineConfig = { preset: 'balanced', tools: { Read: { maxTokens: 4000 }, 'mcp__*': { exempt: true } } };
 */
export interface PipelineConfig {
  preset?: PresetName;
  stages?: StageSpec[];
  tokenizer?: string;
  tools?: Record<string, ToolOverride>;
}

export interface ResolvedPipeline {
  readonly preset: PresetName | 'custom';
  readonly stages: readonly Stage[];
  readonly specs: readonly Readonly<{ name: StageName } & Record<string, unknown>>[];
  readonly tokenizer: Tokenizer;
  readonly tools: Readonly<Record<string, Readonly<ToolOverride>>>;
}

/** The presets DESIGN.md lists: lossless stages first, the fallback last. */
export const PRESETS: Readonly<Record<PresetName, readonly StageSpec[]>> = {
  off: [],
  safe: ['textclean', 'format', { name: 'collapse', maxTokens: 3000 }],
  balanced: ['textclean', 'format', 'dedup', 'linecap', { name: 'collapse', maxTokens: 2000 }],
  aggressive: ['textclean', 'format', 'dedup', 'linecap', { name: 'collapse', maxTokens: 1000 }, 'mask'],
};

type OptionKind = 'int>=0' | 'int' | 'int>=1' | 'fraction';
const STAGE_OPTIONS: Record<StageName, Record<string, OptionKind>> = {
  textclean: {},
  format: {},
  dedup: { minBytes: 'int>=0' },
  linecap: { maxLineChars: 'int>=1', headChars: 'int>=0', tailChars: 'int>=0' },
  collapse: { maxTokens: 'int>=0', maxFrac: 'fraction', headLines: 'int', tailLines: 'int' },
  mask: { keepRecent: 'int>=0', batch: 'int>=1' },
};

function bad(message: string): SpillwayError {
  return new SpillwayError('SPILLWAY_BAD_CONFIG', message);
}

function checkKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw bad(`${where}: unknown key "${key}"; allowed: ${allowed.length ? allowed.join(', ') : '(none)'}`);
    }
  }
}

function checkOption(where: string, key: string, value: unknown, kind: OptionKind): void {
  const isInt = typeof value === 'number' && Number.isSafeInteger(value);
  const ok =
    kind === 'fraction'
      ? typeof value === 'number' && value > 0 && value <= 1
      : isInt && (kind === 'int' || (kind === 'int>=0' ? (value as number) >= 0 : (value as number) >= 1));
  if (!ok) {
    const want =
      kind === 'fraction'
        ? 'a number above 0 and at most 1'
        : kind === 'int'
          ? 'a whole number'
          : `a whole number ${kind.slice(3)}`;
    throw bad(`${where}: "${key}" must be ${want}, got ${JSON.stringify(value)}`);
  }
}

function normaliseSpec(spec: unknown, index: number): { name: StageName } & Record<string, unknown> {
  const where = `stages[${index}]`;
  const obj = typeof spec === 'string' ? { name: spec } : spec;
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    throw bad(`${where}: expected a stage name or {"name": ..., options}`);
  const name = (obj as { name?: unknown }).name;
  if (typeof name !== 'string' || !(STAGE_NAMES as readonly string[]).includes(name)) {
    throw bad(`${where}: unknown stage ${JSON.stringify(name)}; stages: ${STAGE_NAMES.join(', ')}`);
  }
  const options = STAGE_OPTIONS[name as StageName];
  checkKeys(`${where} (${name})`, obj as Record<string, unknown>, ['name', ...Object.keys(options)]);
  for (const [key, value] of Object.entries(obj)) {
    if (key !== 'name') checkOption(`${where} (${name})`, key, value, options[key] as OptionKind);
  }
  return { ...(obj as Record<string, unknown>), name: name as StageName };
}

/**
 * Builds one stage from its spec.
 *
 * @example
 * buildStage({ name: 'collapse', maxTokens: 1500 });
 */
export function buildStage(spec: { name: StageName } & Record<string, unknown>): Stage {
  switch (spec.name) {
    case 'textclean':
      return textcleanStage();
    case 'format':
      return formatStage();
    case 'dedup':
      return dedupStage(spec as DedupOptions);
    case 'linecap':
      return linecapStage(spec as LinecapOptions);
    case 'collapse':
      return collapseStage(spec as CollapseOptions);
    case 'mask':
      return maskStage(spec as MaskOptions);
  }
}

/**
 * Validates a configuration (unknown keys and bad values are errors that say what is allowed)
 * and resolves it to frozen stages. No config means the `balanced` preset.
 *
 * @example
 * resolvePipeline({ preset: 'safe' }).stages.map((s) => s.name); // ['textclean', 'format', 'collapse']
 * resolvePipeline({ stages: ['textclean', { name: 'collapse', maxTokens: 500 }] });
 */
export function resolvePipeline(config: PipelineConfig | unknown = {}): ResolvedPipeline {
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw bad('config must be a JSON object');
  const c = config as Record<string, unknown>;
  checkKeys('config', c, ['preset', 'stages', 'tokenizer', 'tools']);
  const preset = c.preset ?? 'balanced';
  if (typeof preset !== 'string' || !(PRESET_NAMES as readonly string[]).includes(preset)) {
    throw bad(`config: unknown preset ${JSON.stringify(preset)}; presets: ${PRESET_NAMES.join(', ')}`);
  }
  if (c.stages !== undefined && !Array.isArray(c.stages)) throw bad('config: "stages" must be a list');
  const specs = ((c.stages as unknown[] | undefined) ?? PRESETS[preset as PresetName]).map(normaliseSpec);
  const tokenizerName = c.tokenizer ?? 'o200k';
  if (typeof tokenizerName !== 'string' || !isTokenizerName(tokenizerName)) {
    throw bad(
      `config: unknown tokenizer ${JSON.stringify(tokenizerName)}; use one of: ${TOKENIZER_NAMES.join(', ')}`,
    );
  }
  const tools: Record<string, ToolOverride> = {};
  if (c.tools !== undefined) {
    if (typeof c.tools !== 'object' || c.tools === null || Array.isArray(c.tools))
      throw bad('config: "tools" must be an object of tool name -> {exempt?, maxTokens?}');
    for (const [tool, value] of Object.entries(c.tools as Record<string, unknown>)) {
      const where = `tools["${tool}"]`;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw bad(`${where}: expected {exempt?, maxTokens?}`);
      checkKeys(where, value as Record<string, unknown>, ['exempt', 'maxTokens']);
      const v = value as ToolOverride;
      if (v.exempt !== undefined && typeof v.exempt !== 'boolean')
        throw bad(`${where}: "exempt" must be true or false`);
      if (v.maxTokens !== undefined) checkOption(where, 'maxTokens', v.maxTokens, 'int>=0');
      tools[tool] = Object.freeze({ ...v });
    }
  }
  return Object.freeze({
    preset: c.stages === undefined ? (preset as PresetName) : 'custom',
    stages: Object.freeze(specs.map(buildStage)),
    specs: Object.freeze(specs.map((s) => Object.freeze(s))),
    tokenizer: getTokenizer(tokenizerName),
    tools: Object.freeze(tools),
  });
}

/**
 * The collapse budget a resolved pipeline gives a tool, for reports and checks.
 *
 * @example
 * collapseBudget(resolvePipeline(), 'Bash'); // 2000
 */
export function collapseBudget(pipeline: ResolvedPipeline, tool: string): number | undefined {
  const spec = pipeline.specs.find((s) => s.name === 'collapse');
  if (!spec) return undefined;
  return toolOverride(pipeline.tools, tool)?.maxTokens ?? (spec.maxTokens as number | undefined) ?? 2000;
}
