import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOriginForm, upstreamHeaders, upstreamUrl } from './upstreams.js';

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
