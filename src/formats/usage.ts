import { asRecord as obj } from '../text/json-values.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/**
 * The input tokens an answer (or one of its stream events) reports, cached ones included;
 * undefined when it reports none. Every API's shape: Anthropic (cache reads and writes count),
 * OpenAI Chat and Responses, Gemini's usageMetadata, count_tokens; the proxy reads answers with
 * it, replay a transcript's recorded usage.
 *
 * @example
 * inputTokensOf({ type: 'message_start', message: { usage: { input_tokens: 12, cache_read_input_tokens: 900 } } }); // 912
 * inputTokensOf({ usage: { prompt_tokens: 40 } }); // 40
 */
export function inputTokensOf(answer: unknown): number | undefined {
  // Gemini's stream without alt=sse is one JSON array of chunks: the last report wins.
  if (Array.isArray(answer))
    return answer.reduce<number | undefined>((found, chunk) => inputTokensOf(chunk) ?? found, undefined);
  const o = obj(answer);
  if (!o) return undefined;
  const gemini = obj(o.usageMetadata);
  if (gemini && typeof gemini.promptTokenCount === 'number') return num(gemini.promptTokenCount);
  // count_tokens answers with the count itself, at the top.
  const usage =
    obj(o.usage) ??
    obj(obj(o.message)?.usage) ??
    obj(obj(o.response)?.usage) ??
    (o.type === undefined ? o : undefined);
  if (!usage) return undefined;
  if (typeof usage.prompt_tokens === 'number') return num(usage.prompt_tokens);
  if (typeof usage.input_tokens !== 'number') return undefined;
  // Anthropic counts cache reads and writes apart from input_tokens; OpenAI's input includes them.
  return (
    num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens)
  );
}
