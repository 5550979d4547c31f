import { describe, expect, it } from 'vitest';
import { inputTokensOf } from './usage.js';

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
});
