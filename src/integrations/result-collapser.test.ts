import { describe, expect, it } from 'vitest';
import { spillway } from './ai-sdk.js';
import { resultCollapser } from './result-collapser.js';

describe('an integration’s options are checked when it is made', () => {
  for (const tokens of [-1, 0, 10, 99, 1.5, Number.NaN])
    it(`spillway({ tokens: ${tokens} }) throws SPILLWAY_BAD_CONFIG at once`, () => {
      expect(() => spillway({ tokens })).toThrow(
        expect.objectContaining({
          code: 'SPILLWAY_BAD_CONFIG',
          message: expect.stringMatching(/^tokens: .*; give tokens: 100 or more \(default 2000\)$/),
        }),
      );
    });

  it('an unknown tokenizer throws at once too, naming the ones there are', () => {
    expect(() => resultCollapser({ tokenizer: 'gpt2' })).toThrow(
      expect.objectContaining({ code: 'SPILLWAY_BAD_CONFIG', message: expect.stringMatching(/o200k/) }),
    );
  });

  it('takes the smallest budget and the default', async () => {
    expect(spillway({ tokens: 100 }).store).toBeDefined();
    const c = resultCollapser();
    expect(await c.text('short')).toBe('short');
  });
});
