import { boundedMemo } from './bounded-memo.js';
import { DEFAULT_MODEL_WINDOW, EXTENDED_WINDOWS, MODEL_WINDOWS } from './model-windows.js';

/** What {@link lookupModelLimit} knows about a model name. */
export interface ModelLimit {
  /** Context window in tokens; the conservative default when `found` is false. */
  limit: number;
  /** False for unknown names: `limit` is then a fallback, not knowledge. */
  found: boolean;
  /** The table entry that matched, when one did. */
  matched?: string;
  /** A local model (Ollama, LM Studio, a .gguf file): its window is however it is served. */
  local?: boolean;
  /** The larger window the request opted into (Anthropic's 1M context), when it did. */
  extended?: boolean;
}

// Local runtimes: their window is a serving setting (num_ctx), never the model's name.
const LOCAL_PREFIX = /^(?:ollama|lmstudio|lm-studio|local|llamacpp|llama\.cpp|vllm-local)\//i;
const OLLAMA_TAG = /^[a-z0-9._-]+:[a-z0-9._-]+$/i;

/**
 * True for the name of a local model: `ollama/...`, `lmstudio/...`, `local/...`, a `.gguf`
 * file, or an Ollama tag (`llama3:8b`, `qwen2.5-coder:7b`; Bedrock's `-v1:0` is not one).
 *
 * @example
 * isLocalModel('llama3:8b'); // true
 * isLocalModel('us.anthropic.claude-3-5-sonnet-20240620-v1:0'); // false
 */
export function isLocalModel(name: string): boolean {
  const n = name.trim();
  if (LOCAL_PREFIX.test(n) || /\.gguf$/i.test(n)) return true;
  return OLLAMA_TAG.test(n) && !/-v\d+:\d+$/.test(n);
}

// Vendors and regions that Bedrock, Vertex and routers put in front of a model id.
const VENDOR_PREFIX =
  /^(?:(?:us|eu|apac|au|jp|global)\.)?(?:anthropic|meta|mistral|amazon|cohere|ai21|deepseek|qwen|openai|google|xai)\./;
const DATE_SUFFIX = /(?:[-@](?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4})|-latest|-v\d+(?::\d+)?)$/;
// Families that write versions with dots in some places and dashes in others.
const DOTTED_FAMILY = /^(claude|llama|grok)/;

/**
 * Turns the many spellings of one model into the table's: lower case, no provider prefix
 * (`openai/`, `anthropic.`, `us.anthropic.`), no router suffix (`:free`), no date or version
 * suffix (`-20250929`, `-2024-08-06`, `@20240620`, `-v1:0`, `-latest`).
 *
 * @example
 * normaliseModelName('us.anthropic.claude-3-5-sonnet-20240620-v1:0'); // 'claude-3-5-sonnet'
 * normaliseModelName('anthropic/claude-sonnet-4.5'); // 'claude-sonnet-4-5'
 */
export function normaliseModelName(name: string): string {
  let n = name.trim().toLowerCase();
  n = n.slice(n.lastIndexOf('/') + 1);
  n = n.replace(VENDOR_PREFIX, '');
  n = n.replace(/\[1m\]$/, '');
  // `-v1:0` is Bedrock's version, `:free` a router's tier; strip the version first.
  n = n.replace(/-v\d+(?::\d+)?$/, '').replace(/:[a-z0-9-]*$/, '');
  for (let prev = ''; prev !== n; ) {
    prev = n;
    n = n.replace(DATE_SUFFIX, '');
  }
  if (DOTTED_FAMILY.test(n)) n = n.replace(/(\d)\.(\d)/g, '$1-$2').replace(/^llama(\d)/, 'llama-$1');
  return n;
}

/** Output room assumed for a request that does not say how much it may generate. */
export const DEFAULT_OUTPUT_TOKENS = 8_192;

/**
 * The most a request's input may hold in a window: the window less the output it asks room for
 * (default {@link DEFAULT_OUTPUT_TOKENS}) and a margin for what an estimate cannot see (the
 * provider's own framing): 2% of the window, at least 1,024 tokens.
 *
 * @example
 * inputLimit(200_000, 32_000); // 163_904
 */
export function inputLimit(window: number, outputTokens = DEFAULT_OUTPUT_TOKENS): number {
  const margin = Math.max(1_024, Math.round(window * 0.02));
  return Math.max(0, Math.floor(window - outputTokens - margin));
}

/**
 * The context window of a model, tolerant of provider prefixes and date suffixes. An unknown
 * name gets a conservative default with `found: false`: callers that validate a user's setting
 * must not treat that default as an upper bound. The window is the one the request has: the
 * larger opt-in window (Claude's 1M context) only with `extended` (the request carries the beta
 * header) or a `[1m]` suffix, and only on a model that offers it.
 *
 * @example
 * lookupModelLimit('anthropic/claude-sonnet-4-5-20250929'); // { limit: 200000, found: true, matched: 'claude-sonnet-4-5' }
 * lookupModelLimit('my-local-llm'); // { limit: 128000, found: false }
 * lookupModelLimit('ollama/qwen2.5-coder:7b'); // { limit: 128000, found: false, local: true }
 */
export function lookupModelLimit(name: string, options: { extended?: boolean } = {}): ModelLimit {
  // Every request asks, and the answer depends on the name alone. A name comes from the body:
  // only names of a sane length are remembered, so the memory stays small whatever is sent.
  if (name.length > MAX_REMEMBERED_NAME) return findModelLimit(name, options.extended === true);
  return cachedLimit(`${options.extended ? 1 : 0}${name}`);
}

const MAX_REMEMBERED_NAME = 200;

const cachedLimit = boundedMemo((key) => Object.freeze(findModelLimit(key.slice(1), key[0] === '1')), 512);

function findModelLimit(name: string, extended: boolean): ModelLimit {
  if (isLocalModel(name)) return { limit: DEFAULT_MODEL_WINDOW, found: false, local: true };
  const key = normaliseModelName(name);
  let matched: string | undefined;
  if (Object.hasOwn(MODEL_WINDOWS, key)) matched = key;
  else {
    // The longest entry the name extends after a separator: gpt-4o-mini-search-preview -> gpt-4o-mini.
    for (const k of Object.keys(MODEL_WINDOWS)) {
      const next = key.charAt(k.length);
      if (key.startsWith(k) && (next === '-' || next === '.') && (!matched || k.length > matched.length))
        matched = k;
    }
  }
  if (matched === undefined) return { limit: DEFAULT_MODEL_WINDOW, found: false };
  const limit = MODEL_WINDOWS[matched] as number;
  const larger = EXTENDED_WINDOWS[matched];
  if (larger && (extended || /\[1m\]\s*$/i.test(name)))
    return { limit: Math.max(limit, larger), found: true, matched, extended: true };
  return { limit, found: true, matched };
}
