import { asRecord as obj } from '../text/index.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/**
 * The input tokens an answer reports, as the provider bills them: read at full price, read from
 * its prompt cache, and written to it (Anthropic's cache writes; the others bill none apart).
 */
export interface InputUsage {
  /** Input tokens at the base price (not from the cache, not written to it). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * The input usage an answer (or one of its stream events) reports, or undefined when it reports
 * none. Every API's shape: Anthropic (`input_tokens` beside its cache reads and writes), OpenAI
 * Chat (`prompt_tokens`, cached ones in `prompt_tokens_details`) and Responses (`input_tokens`,
 * cached ones in `input_tokens_details`), Gemini's usageMetadata (`cachedContentTokenCount`),
 * count_tokens.
 *
 * @example
 * inputUsageOf({ type: 'message_start', message: { usage: { input_tokens: 12, cache_read_input_tokens: 900 } } }); // { input: 12, cacheRead: 900, cacheWrite: 0 }
 * inputUsageOf({ usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 30 } } }); // { input: 10, cacheRead: 30, cacheWrite: 0 }
 */
export function inputUsageOf(answer: unknown): InputUsage | undefined {
  // Gemini's stream without alt=sse is one JSON array of chunks: the last report wins.
  if (Array.isArray(answer))
    return answer.reduce<InputUsage | undefined>((found, chunk) => inputUsageOf(chunk) ?? found, undefined);
  const o = obj(answer);
  if (!o) return undefined;
  const gemini = obj(o.usageMetadata);
  if (gemini && typeof gemini.promptTokenCount === 'number') {
    const cached = Math.min(num(gemini.cachedContentTokenCount), num(gemini.promptTokenCount));
    return { input: num(gemini.promptTokenCount) - cached, cacheRead: cached, cacheWrite: 0 };
  }
  // count_tokens answers with the count itself, at the top.
  const usage =
    obj(o.usage) ??
    obj(obj(o.message)?.usage) ??
    obj(obj(o.response)?.usage) ??
    (o.type === undefined ? o : undefined);
  if (!usage) return undefined;
  // OpenAI's totals include their cached part.
  const openai = (total: unknown, details: unknown): InputUsage => {
    const cached = Math.min(num(obj(details)?.cached_tokens), num(total));
    return { input: num(total) - cached, cacheRead: cached, cacheWrite: 0 };
  };
  if (typeof usage.prompt_tokens === 'number')
    return openai(usage.prompt_tokens, usage.prompt_tokens_details);
  if (typeof usage.input_tokens !== 'number') return undefined;
  if (usage.input_tokens_details !== undefined) return openai(usage.input_tokens, usage.input_tokens_details);
  // Anthropic counts cache reads and writes apart from input_tokens.
  return {
    input: num(usage.input_tokens),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
  };
}

/**
 * All the input tokens of a usage: what the provider counted of the request.
 *
 * @example
 * totalInput({ input: 12, cacheRead: 900, cacheWrite: 0 }); // 912
 */
export function totalInput(usage: InputUsage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

/**
 * The input tokens an answer (or one of its stream events) reports, cached ones included;
 * undefined when it reports none (see inputUsageOf). The proxy calibrates its estimates with
 * it, replay reads a transcript's recorded usage.
 *
 * @example
 * inputTokensOf({ type: 'message_start', message: { usage: { input_tokens: 12, cache_read_input_tokens: 900 } } }); // 912
 * inputTokensOf({ usage: { prompt_tokens: 40 } }); // 40
 */
export function inputTokensOf(answer: unknown): number | undefined {
  const usage = inputUsageOf(answer);
  return usage === undefined ? undefined : totalInput(usage);
}
