import { createServer } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { pinnedLibrary } from '../test-support/client-install.js';
import { listenOnLoopback } from '../test-support/loopback.js';
import { providerCases, type SdkErrorReader } from '../test-support/provider-cases.js';
import { PROVIDERS, type ProviderExamples, ProviderSet, type ProviderSpec } from './index.js';
import {
  spec as openaiChat,
  openaiChatAdapter,
  examples as openaiChatExamples,
} from './openai-chat/index.js';

// The official SDKs load from the pinned cache (`npm run clients`); without them the SDK cases
// skip, saying why.
const anthropicSdk = await pinnedLibrary('@anthropic-ai/sdk');
const openaiSdk = await pinnedLibrary('openai');
const servers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of servers) await close();
});

/** A loopback server that answers every request with `status` and `body`, for an SDK to read. */
async function answering(status: number, body: unknown): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  const { url, close } = await listenOnLoopback(server);
  servers.push(close);
  return url;
}

// biome-ignore lint/suspicious/noExplicitAny: the SDKs load at run time from the cache, without their types
type Sdk = any;
const caught = async (call: () => Promise<unknown>): Promise<Sdk> => {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('the SDK took the error answer for a success');
};

const anthropicReader = (): SdkErrorReader | string => {
  if ('missing' in anthropicSdk) return anthropicSdk.missing;
  const Anthropic = anthropicSdk.module.Anthropic as Sdk;
  return async (status, body) => {
    const baseURL = await answering(status, body);
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0 });
    const err = await caught(() => client.messages.create({ model: 'm', max_tokens: 1, messages: [] }));
    return { type: err.type, message: JSON.stringify(err.error) };
  };
};

const openaiReader = (call: (client: Sdk) => Promise<unknown>): SdkErrorReader | string => {
  if ('missing' in openaiSdk) return openaiSdk.missing;
  const OpenAI = openaiSdk.module.OpenAI as Sdk;
  return async (status, body) => {
    const baseURL = `${await answering(status, body)}/v1`;
    const err = await caught(() => call(new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0 })));
    return { type: err.type, message: String(err.message) };
  };
};

// Each provider's folder (named by its API) exports its examples beside its spec.
const EXAMPLES: Record<string, ProviderExamples> = Object.fromEntries(
  await Promise.all(
    PROVIDERS.specs.map(async (s) => [
      s.api,
      ((await import(`./${s.api}/index.ts`)) as { examples: ProviderExamples }).examples,
    ]),
  ),
);

const examplesOf = (api: string): ProviderExamples => {
  const found = EXAMPLES[api];
  if (!found) throw new Error(`src/providers/${api}/index.ts exports no examples`);
  return found;
};

const SDK_READERS: Record<string, SdkErrorReader | string> = {
  anthropic: anthropicReader(),
  'openai-chat': openaiReader((c) => c.chat.completions.create({ model: 'm', messages: [] })),
  'openai-responses': openaiReader((c) => c.responses.create({ model: 'm', input: [] })),
  gemini: 'no Gemini SDK is pinned beside the clients (Gemini CLI bundles its own)',
  acme: 'acme is an API of this test only: it has no SDK',
};

describe('every registered provider', () => {
  it('the registry lists each API once, with the upstream keys users write (--openai-upstream, upstreams.json)', () => {
    expect(PROVIDERS.apis).toEqual(
      expect.arrayContaining(['anthropic', 'openai-chat', 'openai-responses', 'gemini']),
    );
    expect(PROVIDERS.upstreamKeys).toEqual(expect.arrayContaining(['anthropic', 'openai', 'gemini']));
    expect(new Set(PROVIDERS.apis).size).toBe(PROVIDERS.apis.length);
    expect(PROVIDERS.fallback.upstream.key).toBe('openai');
  });
  for (const spec of PROVIDERS.specs)
    providerCases(spec, examplesOf(spec.api), PROVIDERS, SDK_READERS[spec.api]);
});

/**
 * A fifth provider, in this test only: a Chat-like API of its own at its own host, with its own
 * path, key header, error shape and usage. Its spec and one line (the set below) are all it
 * takes: every derived table takes it in, and it passes the cases every provider runs.
 */
const acme: ProviderSpec<'acme', 'acme'> = {
  api: 'acme',
  upstream: { key: 'acme', url: 'https://api.acme.test' },
  paths: { '/acme/v1/chat': { advances: true } },
  names: (path, headers) => path.startsWith('/acme/') || headers['x-acme-key'] !== undefined,
  credentials: { headers: ['x-acme-key'] },
  adapter: {
    api: 'acme',
    view(body) {
      const view = openaiChatAdapter.view(body);
      return view && { ...view, api: 'acme' };
    },
  },
  conversationKey: 'messages',
  maxOutput: (body) => body.max_new_tokens,
  errorBody: (type, message) => ({ error: { kind: type, message } }),
  usageMark: 'acme_prompt"',
  usage(answer) {
    const meter = answer.meter as { acme_prompt?: unknown; acme_cached?: unknown } | undefined;
    if (typeof meter?.acme_prompt !== 'number') return undefined;
    const cached = typeof meter.acme_cached === 'number' ? meter.acme_cached : 0;
    return { input: meter.acme_prompt - cached, cacheRead: cached, cacheWrite: 0 };
  },
  prices: { 'acme-large': { input: 1, cacheRead: 0.1, cacheWrite: 1 } },
  recall: openaiChat.recall,
};

const ACME_EXAMPLES: ProviderExamples = {
  request: {
    path: '/acme/v1/chat',
    headers: { 'x-acme-key': 'acme-example' },
    body: {
      ...openaiChatExamples.request.body,
      model: 'acme-large',
      max_completion_tokens: undefined,
      max_new_tokens: 2048,
    },
  },
  answer: {
    body: { id: 'a1', meter: { acme_prompt: 900, acme_cached: 800 } },
    usage: { input: 100, cacheRead: 800, cacheWrite: 0 },
  },
};

describe('a fifth provider is its spec and one line', () => {
  const withAcme = new ProviderSet([...PROVIDERS.specs, acme]);
  for (const spec of withAcme.specs)
    providerCases(
      spec,
      spec === acme ? ACME_EXAMPLES : examplesOf(spec.api),
      withAcme,
      SDK_READERS[spec.api],
    );

  it('every table derived from the registry takes it in, and the others are as they were', () => {
    expect(withAcme.paths()).toEqual({ ...PROVIDERS.paths(), '/acme/v1/chat': 'acme' });
    expect(withAcme.upstreamKeys).toEqual([...PROVIDERS.upstreamKeys, 'acme']);
    expect(withAcme.defaultUpstreams).toEqual({
      ...PROVIDERS.defaultUpstreams,
      acme: 'https://api.acme.test',
    });
    expect(withAcme.fallback).toBe(PROVIDERS.fallback);
    expect(withAcme.priceOf('acme-large-2')?.matched).toBe('acme-large');
    expect(withAcme.of('acme').errorBody('x', 'y')).toEqual({ error: { kind: 'x', message: 'y' } });
    // Its key header is a credential: a request carrying it with another API's headers goes nowhere.
    expect([...withAcme.named('/v1/messages', { 'x-acme-key': 'k' })]).toEqual(['anthropic', 'acme']);
    expect(PROVIDERS.carriesCredential('/v1/models', { 'x-acme-key': 'k' })).toBe(false);
    expect(withAcme.carriesCredential('/v1/models', { 'x-acme-key': 'k' })).toBe(true);
  });
});
