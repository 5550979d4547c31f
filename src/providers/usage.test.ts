import { describe, expect, it } from 'vitest';
import { costOf, inputTokensOf, inputUsageOf, priceOf } from './index.js';

describe('input tokens an answer reports', () => {
  it("reads every API's input tokens, cached ones included", () => {
    expect(
      inputTokensOf({
        type: 'message_start',
        message: {
          usage: { input_tokens: 12, cache_creation_input_tokens: 100, cache_read_input_tokens: 900 },
        },
      }),
    ).toBe(1012);
    expect(
      inputTokensOf({ object: 'chat.completion', usage: { prompt_tokens: 40, completion_tokens: 3 } }),
    ).toBe(40);
    expect(inputTokensOf({ type: 'response.completed', response: { usage: { input_tokens: 77 } } })).toBe(77);
    expect(inputTokensOf({ input_tokens: 1234 })).toBe(1234); // count_tokens
    expect(inputTokensOf({ object: 'chat.completion.chunk', usage: null })).toBeUndefined();
    expect(
      inputTokensOf({ type: 'content_block_delta', delta: { text: '"input_tokens": 5' } }),
    ).toBeUndefined();
    expect(inputTokensOf('nope')).toBeUndefined();
    // Gemini: usageMetadata, in an answer or the last chunk of a JSON-array stream that has one.
    const chunk = (n?: number) => ({
      candidates: [],
      ...(n ? { usageMetadata: { promptTokenCount: n } } : {}),
    });
    expect(inputTokensOf(chunk(321))).toBe(321);
    expect(inputTokensOf([chunk(5), chunk(9), chunk()])).toBe(9);
  });

  it('splits input as the provider bills it: base price, cache reads, cache writes', () => {
    expect(
      inputUsageOf({
        type: 'message_start',
        message: {
          usage: { input_tokens: 12, cache_read_input_tokens: 900, cache_creation_input_tokens: 300 },
        },
      }),
    ).toEqual({ input: 12, cacheRead: 900, cacheWrite: 300 });
    // OpenAI's totals include the cached part.
    expect(
      inputUsageOf({ usage: { prompt_tokens: 40, prompt_tokens_details: { cached_tokens: 30 } } }),
    ).toEqual({
      input: 10,
      cacheRead: 30,
      cacheWrite: 0,
    });
    expect(
      inputUsageOf({
        type: 'response.completed',
        response: { usage: { input_tokens: 77, input_tokens_details: { cached_tokens: 70 } } },
      }),
    ).toEqual({ input: 7, cacheRead: 70, cacheWrite: 0 });
    expect(inputUsageOf({ usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 60 } })).toEqual({
      input: 40,
      cacheRead: 60,
      cacheWrite: 0,
    });
    // A cached count over the total is not believed past the total.
    expect(
      inputUsageOf({ usage: { prompt_tokens: 5, prompt_tokens_details: { cached_tokens: 9 } } }),
    ).toEqual({
      input: 0,
      cacheRead: 5,
      cacheWrite: 0,
    });
  });
});

describe('prices', () => {
  it('prices a model by its longest known prefix, the config first, and leaves an unknown one unpriced', () => {
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual({
      matched: 'claude-sonnet',
      price: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(priceOf('claude-opus-4-1-20250805')?.price.input).toBe(15);
    expect(priceOf('claude-opus-4-5')?.price.input).toBe(5);
    expect(priceOf('gpt-5-mini-2025-08-07')?.matched).toBe('gpt-5-mini');
    expect(priceOf('models/gemini-2.5-flash-lite')?.matched).toBe('gemini-2.5-flash-lite');
    expect(priceOf('local-llama')).toBeUndefined();
    expect(priceOf(undefined)).toBeUndefined();
    const mine = { input: 1, cacheRead: 0.5, cacheWrite: 1 };
    expect(priceOf('claude-sonnet-4-5', { claude: mine })?.price).toEqual(mine);
  });

  it('costs a usage in USD per million tokens', () => {
    const sonnet = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(costOf({ input: 1_000_000, cacheRead: 0, cacheWrite: 0 }, sonnet)).toBeCloseTo(3, 10);
    expect(costOf({ input: 1000, cacheRead: 1_000_000, cacheWrite: 2000 }, sonnet)).toBeCloseTo(
      0.003 + 0.3 + 0.0075,
      10,
    );
  });
});
