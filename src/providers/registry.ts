import { spec as anthropic } from './anthropic/index.js';
import { spec as gemini } from './gemini/index.js';
import { spec as openaiChat } from './openai-chat/index.js';
import { spec as openaiResponses } from './openai-responses/index.js';
import type { ModelPrice, Prices } from './prices.js';
import { ProviderSet } from './provider-set.js';
import { type InputUsage, totalInput } from './usage.js';
import type { RequestAdapter } from './view.js';

/**
 * Every model API spillway speaks, one folder each, in the order requests and answers are
 * recognised. Adding a provider: its folder exporting `spec` (a ProviderSpec), and its line here;
 * the shared cases (provider-cases.test.ts) then test it.
 */
const REGISTERED = [anthropic, openaiChat, openaiResponses, gemini] as const;

/** A model API's name: the one vocabulary of APIs (stats, logs, replay, the session log). */
export type ApiName = (typeof REGISTERED)[number]['api'];
/** A key users name an upstream by (`--openai-upstream`, upstreams.json): one per provider. */
export type UpstreamKey = (typeof REGISTERED)[number]['upstream']['key'];

/**
 * The registered providers, and what is derived from them.
 *
 * @example
 * PROVIDERS.call('POST', '/v1/responses')?.api; // 'openai-responses'
 */
export const PROVIDERS = new ProviderSet<(typeof REGISTERED)[number]>(REGISTERED);

/**
 * Every API's name, in registry order.
 *
 * @example
 * API_NAMES.includes('gemini'); // true
 */
export const API_NAMES: readonly ApiName[] = PROVIDERS.apis;

/**
 * The adapter of each API: its request bodies' tool results.
 *
 * @example
 * ADAPTERS.anthropic.view(JSON.parse(body))?.results.length;
 */
export const ADAPTERS = Object.fromEntries(REGISTERED.map((s) => [s.api, s.adapter])) as {
  readonly [A in ApiName]: RequestAdapter<A>;
};

/**
 * Where the proxy sends each upstream's requests when the user configured no endpoint of their own.
 *
 * @example
 * DEFAULT_UPSTREAMS.openai; // 'https://api.openai.com'
 */
export const DEFAULT_UPSTREAMS: Readonly<Record<UpstreamKey, string>> = PROVIDERS.defaultUpstreams;

/**
 * The input usage an answer (or one of its stream events) reports, as its provider bills it, or
 * undefined when it reports none: Anthropic (`input_tokens` beside its cache reads and writes),
 * OpenAI Chat (`prompt_tokens`, cached ones within) and Responses (`input_tokens`, cached ones
 * in `input_tokens_details`), Gemini's usageMetadata, count_tokens.
 *
 * @example
 * inputUsageOf({ type: 'message_start', message: { usage: { input_tokens: 12, cache_read_input_tokens: 900 } } }); // { input: 12, cacheRead: 900, cacheWrite: 0 }
 * inputUsageOf({ usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 30 } } }); // { input: 10, cacheRead: 30, cacheWrite: 0 }
 */
export function inputUsageOf(answer: unknown): InputUsage | undefined {
  return PROVIDERS.usageOf(answer);
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

/**
 * The price of a model (its name as the request gives it; a provider's `models/` prefix and a
 * date suffix do not matter), from `overrides` first, then the providers' built-in tables;
 * undefined for a model neither knows.
 *
 * @example
 * priceOf('claude-sonnet-4-5-20250929')?.price.input; // 3
 * priceOf('my-model', { 'my-model': { input: 1, cacheRead: 0.1, cacheWrite: 1 } })?.matched; // 'my-model'
 */
export function priceOf(
  model: string | undefined,
  overrides?: Readonly<Prices>,
): { price: ModelPrice; matched: string } | undefined {
  return PROVIDERS.priceOf(model, overrides);
}
