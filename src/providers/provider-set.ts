import { SpillwayError } from '../errors.js';
import { asRecord } from '../text/index.js';
import { type ModelPrice, type Prices, priceIn } from './prices.js';
import type { Headers, ModelCall, ProviderSpec } from './provider-spec.js';
import type { InputUsage } from './usage.js';

/** The headers that carry a credential to any API: beside them, each provider's own. */
const CREDENTIALS = ['authorization', 'cookie'];

/**
 * What every layer asks of the providers, derived from their specs: the registry's set
 * (registry.ts) is the one the proxy, the CLI, replay and the store use; a test builds one with
 * a provider of its own.
 *
 * @example
 * const set = new ProviderSet([anthropic, openaiChat]);
 * set.call('POST', '/v1/messages'); // { api: 'anthropic', advances: true }
 */
export class ProviderSet<S extends ProviderSpec = ProviderSpec> {
  readonly specs: readonly S[];
  /** Every API's name, in registry order. */
  readonly apis: readonly S['api'][];
  /** Every upstream key, once each, in registry order (`openai` once for its two APIs). */
  readonly upstreamKeys: readonly S['upstream']['key'][];
  /** Where each upstream key's requests go when no endpoint is configured. */
  readonly defaultUpstreams: Readonly<Record<S['upstream']['key'], string>>;
  /** Every provider's built-in prices, as one table. */
  readonly prices: Readonly<Prices>;
  readonly #byApi: ReadonlyMap<string, S>;

  constructor(specs: readonly S[]) {
    this.specs = specs;
    this.apis = specs.map((s) => s.api);
    this.#byApi = new Map(specs.map((s) => [s.api, s]));
    if (this.#byApi.size !== specs.length) throw new Error('two providers have one API name');
    this.upstreamKeys = [...new Set(specs.map((s) => s.upstream.key))];
    this.defaultUpstreams = Object.fromEntries(
      this.upstreamKeys.map((key) => [key, specs.find((s) => s.upstream.key === key)?.upstream.url]),
    ) as Record<S['upstream']['key'], string>;
    this.prices = Object.assign({}, ...specs.map((s) => s.prices));
  }

  /**
   * The provider of an API name.
   *
   * @example
   * PROVIDERS.of('gemini').conversationKey; // 'contents'
   */
  of(api: S['api']): S {
    const spec = this.#byApi.get(api);
    if (!spec) throw new SpillwayError('SPILLWAY_BAD_INPUT', `no provider speaks the API "${api}"`);
    return spec;
  }

  /** Whether `api` names an API of the set. */
  has(api: unknown): api is S['api'] {
    return typeof api === 'string' && this.#byApi.has(api);
  }

  /**
   * The model call a request is (POST to one of the APIs' model paths), or undefined for a request
   * that is passed through.
   *
   * @example
   * PROVIDERS.call('POST', '/v1beta/models/gemini-2.5-pro:countTokens'); // { api: 'gemini', model: 'gemini-2.5-pro', advances: false }
   */
  call(method: string | undefined, path: string): (ModelCall & { api: S['api'] }) | undefined {
    if (method !== 'POST') return undefined;
    for (const spec of this.specs) {
      const call = Object.hasOwn(spec.paths, path) ? spec.paths[path] : spec.call?.(path);
      if (call) return { api: spec.api, ...call };
    }
    return undefined;
  }

  /**
   * The model paths every API names exactly, and their APIs (Gemini's name the model: not here).
   *
   * @example
   * PROVIDERS.paths()['/v1/responses']; // 'openai-responses'
   */
  paths(): Record<string, S['api']> {
    return Object.fromEntries(this.specs.flatMap((s) => Object.keys(s.paths).map((p) => [p, s.api])));
  }

  /**
   * The upstream keys a request names by its path and headers: empty when none tells, more than
   * one when they disagree.
   *
   * @example
   * PROVIDERS.named('/api/hello', {}); // Set { 'anthropic' }
   */
  named(path: string, headers: Headers): Set<S['upstream']['key']> {
    return new Set(this.specs.filter((s) => s.names(path, headers)).map((s) => s.upstream.key));
  }

  /** The provider whose upstream a request that names no API goes to (and whose error shape it gets). */
  get fallback(): S {
    return this.specs.find((s) => s.upstream.fallback) ?? (this.specs[0] as S);
  }

  /** Whether a request carries a credential: in a header any provider reads, or a query parameter. */
  carriesCredential(path: string, headers: Headers): boolean {
    const names = new Set([...CREDENTIALS, ...this.specs.flatMap((s) => s.credentials.headers)]);
    if ([...names].some((h) => headers[h] !== undefined)) return true;
    const query = this.specs.flatMap((s) => s.credentials.query ?? []);
    return query.some((q) => new RegExp(`[?&]${q}=`).test(path));
  }

  /**
   * The input usage an answer (or one of its stream events) reports, read by the provider whose
   * shape it is; undefined when it reports none. Gemini's stream without alt=sse is one JSON
   * array of chunks: the last report wins.
   *
   * @example
   * PROVIDERS.usageOf({ usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 30 } } }); // { input: 10, cacheRead: 30, cacheWrite: 0 }
   */
  usageOf(answer: unknown): InputUsage | undefined {
    if (Array.isArray(answer))
      return answer.reduce<InputUsage | undefined>((found, chunk) => this.usageOf(chunk) ?? found, undefined);
    const o = asRecord(answer);
    if (!o) return undefined;
    for (const spec of this.specs) {
      const usage = spec.usage(o);
      if (usage) return usage;
    }
    return undefined;
  }

  /**
   * A model's price from `overrides` first, then the providers' built-in tables.
   *
   * @example
   * PROVIDERS.priceOf('claude-sonnet-4-5-20250929')?.price.input; // 3
   */
  priceOf(
    model: string | undefined,
    overrides?: Readonly<Prices>,
  ): { price: ModelPrice; matched: string } | undefined {
    return priceIn([overrides ?? {}, this.prices], model);
  }

  /** The API a saved request body is in (replay reads such bodies as transcripts), or undefined. */
  savedApiOf(body: Record<string, unknown>): S['api'] | undefined {
    return this.specs.find((s) => s.saved?.holds(body))?.api;
  }
}
