import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOriginForm, resolveUpstreams, upstreamFor, upstreamHeaders, upstreamUrl } from './upstreams.js';

describe('upstream URLs', () => {
  it('append the request path and query to the upstream, its base path kept', () => {
    expect(upstreamUrl('https://api.openai.com', '/v1/models?limit=2').href).toBe(
      'https://api.openai.com/v1/models?limit=2',
    );
    expect(upstreamUrl('http://gw.local:8080/openai/', '/v1/responses').href).toBe(
      'http://gw.local:8080/openai/v1/responses',
    );
    expect(upstreamUrl('https://api.anthropic.com', '/v1/../../x/%2e%2e/y').href).toBe(
      'https://api.anthropic.com/y',
    );
  });

  it('refuse targets that are not origin-form', () => {
    for (const target of [
      '*@169.254.169.254/latest',
      'http://evil/x',
      '//evil/x',
      '*',
      'evil:80',
      '/a b',
      '/a\\b',
    ])
      expect(isOriginForm(target), target).toBe(false);
    expect(() => upstreamUrl('https://api.openai.com', 'https://evil/x')).toThrow(/is not a path/);
  });

  it('property: no origin-form target changes the upstream origin', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (tail) => {
        const target = `/${tail}`;
        if (!isOriginForm(target)) return;
        expect(upstreamUrl('https://api.openai.com', target).origin).toBe('https://api.openai.com');
      }),
      { numRuns: 500 },
    );
  });

  it("never forwards spillway's own headers or hop-by-hop ones", () => {
    const out = upstreamHeaders(
      { 'x-spillway-token': 't', 'x-spillway-session': 's', connection: 'close', 'x-api-key': 'k' },
      3,
    );
    expect(out).toEqual({ 'x-api-key': 'k', 'content-length': '3' });
  });
});

describe('which upstream a request goes to', () => {
  const chained = resolveUpstreams({ anthropic: 'http://gateway.corp.test' });
  const all = resolveUpstreams({
    anthropic: 'http://a.test',
    openai: 'http://o.test',
    gemini: 'http://g.test',
  });

  it("Claude Code's HEAD /api/hello (no credential, no header of its API) goes to the Anthropic upstream", () => {
    const hello = { 'user-agent': 'Bun/1.4.6', accept: '*/*' };
    expect(upstreamFor(chained, '/api/hello', hello, undefined)).toBe('http://gateway.corp.test');
    expect(upstreamFor(all, '/api/hello', hello, undefined)).toBe('http://a.test');
  });

  it('goes by the headers of the API the client speaks, on a path any API has', () => {
    expect(
      upstreamFor(all, '/v1/models', { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, undefined),
    ).toBe('http://a.test');
    expect(upstreamFor(all, '/v1/models', { authorization: 'Bearer k' }, undefined)).toBe('http://o.test');
    expect(upstreamFor(all, '/v1/models', { 'x-goog-api-key': 'k' }, undefined)).toBe('http://g.test');
  });

  it('a credential on a path no API tells, or with headers of two, is sent nowhere', () => {
    expect(() => upstreamFor(all, '/health', { authorization: 'Bearer k' }, undefined)).toThrow(
      /cannot tell which model API .*sent nowhere/,
    );
    expect(() => upstreamFor(all, '/v1/messages', { 'x-goog-api-key': 'k' }, undefined)).toThrow(
      /more than one model API \(anthropic, gemini\)/,
    );
    // With one upstream configured, that is where the user's requests go.
    expect(upstreamFor(chained, '/health', { authorization: 'Bearer k' }, undefined)).toBe(
      'http://gateway.corp.test',
    );
    // No credential: nothing of the user's can go astray.
    expect(upstreamFor(all, '/health', {}, undefined)).toBe('http://o.test');
  });

  it("property: a provider's key never goes to another provider's upstream", () => {
    const keys = { 'x-api-key': 'http://a.test', 'x-goog-api-key': 'http://g.test' } as const;
    fc.assert(
      fc.property(
        fc.constantFrom(
          '/v1/messages',
          '/v1/responses',
          '/v1/models',
          '/v1beta/models/m:generateContent',
          '/api/hello',
          '/x',
        ),
        fc.constantFrom(...(Object.keys(keys) as (keyof typeof keys)[])),
        fc.boolean(),
        fc.constantFrom(undefined, 'anthropic', 'openai-responses', 'gemini'),
        (path, key, version, api) => {
          const headers = { [key]: 'secret', ...(version ? { 'anthropic-version': '2023-06-01' } : {}) };
          let to: string | undefined;
          try {
            to = upstreamFor(all, path, headers, api as never);
          } catch {
            return; // refused: sent nowhere
          }
          expect(to).toBe(keys[key]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
