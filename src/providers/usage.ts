import { asRecord as obj } from '../text/index.js';

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
 * A token count as a provider reports it: 0 for anything that is not a count.
 *
 * @example
 * tokenCount(12); // 12
 * tokenCount(null); // 0
 */
export const tokenCount = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;

/**
 * Where an answer (or a stream event) keeps its usage: `usage`, a message's (Anthropic's
 * `message_start`) or a response's (Responses' `response.completed`), or the answer itself when
 * it is a count (count_tokens answers with the count at the top).
 *
 * @example
 * usageRecord({ type: 'message_start', message: { usage: { input_tokens: 12 } } }); // { input_tokens: 12 }
 */
export function usageRecord(answer: Record<string, unknown>): Record<string, unknown> | undefined {
  return (
    obj(answer.usage) ??
    obj(obj(answer.message)?.usage) ??
    obj(obj(answer.response)?.usage) ??
    (answer.type === undefined ? answer : undefined)
  );
}

/**
 * A usage whose total includes its cached part (OpenAI's, Gemini's): the rest at the base price.
 *
 * @example
 * cachedWithin(40, 30); // { input: 10, cacheRead: 30, cacheWrite: 0 }
 */
export function cachedWithin(total: unknown, cached: unknown): InputUsage {
  const read = Math.min(tokenCount(cached), tokenCount(total));
  return { input: tokenCount(total) - read, cacheRead: read, cacheWrite: 0 };
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
