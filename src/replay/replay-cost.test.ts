import { describe, expect, it } from 'vitest';
import type { ConversationReplay } from './replay-conversation.js';
import { replayCost } from './replay-cost.js';

const turn = (t: Partial<ConversationReplay['perTurn'][number]>) => ({
  before: 0,
  after: 0,
  other: 0,
  savedInPrefix: 0,
  savedNew: 0,
  prefixRewritten: false,
  overBefore: false,
  overAfter: false,
  guarded: false,
  ...t,
});

// Three requests: the first and last with the usage the provider billed (the session ran
// without spillway), the middle one without; the last rewrote its prefix (mask).
const replay = {
  model: 'test-model-2',
  perTurn: [
    turn({ before: 10_000, after: 2_000, other: 500, savedNew: 8_000 }),
    turn({ before: 10_300, after: 2_300, other: 700, savedInPrefix: 8_000 }),
    turn({ before: 10_300, after: 1_000, other: 700, savedInPrefix: 9_300, prefixRewritten: true }),
  ],
  providerUsage: [
    { input: 10, cacheRead: 0, cacheWrite: 10_490 },
    undefined,
    { input: 5, cacheRead: 10_990, cacheWrite: 10 },
  ],
} as unknown as ConversationReplay;
const prices = { 'test-model': { input: 2, cacheRead: 0.2, cacheWrite: 2.5 } };

describe('replay cost', () => {
  it('prices recorded usage as it was billed, estimates the rest, and the side with spillway, as computed by hand', () => {
    const cost = replayCost(replay, prices);
    expect(cost).toMatchObject({
      reportedTurns: 2,
      estimatedTurns: 1,
      unpricedTurns: 0,
      inputReported: 10_500 + 11_005,
      inputBefore: 10_500 + 11_000 + 11_000,
      inputAfter: 2_500 + 3_000 + 1_700,
    });
    // Turn 1: 10 at 2 + 10,490 written at 2.5 = 26,245; less 8,000 new tokens at 2.5.
    // Turn 2 (estimated): 10,500 read at 0.2 + 500 written = 3,350; with: 2,500 read + 500 written = 1,750.
    // Turn 3: 5 at 2 + 10,990 read at 0.2 + 10 written = 2,233; less 9,300 read = 373; plus the
    // rewritten prefix (1,700 tokens, all of them read from the cache in the original, written
    // again at 2.5 - 0.2 = 3,910).
    expect(cost.usdWithout).toBeCloseTo((26_245 + 3_350 + 2_233) / 1e6, 12);
    expect(cost.usdWith).toBeCloseTo((6_245 + 1_750 + 373 + 3_910) / 1e6, 12);
    expect(cost.usdRewrites).toBeCloseTo(3_910 / 1e6, 12);
  });

  it('charges a rewritten prefix only for what the original read from the cache', () => {
    const cold = {
      ...replay,
      providerUsage: [
        replay.providerUsage?.[0],
        undefined,
        { input: 5, cacheRead: 1_000, cacheWrite: 10_000 },
      ],
    } as ConversationReplay;
    // 1,000 of the 1,700 rewritten tokens were cache reads: 1,000 x 2.3 = 2,300.
    expect(replayCost(cold, prices).usdRewrites).toBeCloseTo(2_300 / 1e6, 12);
  });

  it('charges a rewritten prefix from its first rewritten request on, not the part before it', () => {
    const late = {
      ...replay,
      perTurn: replay.perTurn.map((t, i) => (i === 2 ? { ...t, rewriteFrom: 1 } : t)),
    } as ConversationReplay;
    // The first request (2,500 sent) stays cached: 1,700 - 2,500 leaves nothing to write again.
    expect(replayCost(late, prices).usdRewrites).toBe(0);
  });

  it('counts the tokens of a model with no price, and no cost', () => {
    const cost = replayCost({ ...replay, model: 'local-llama' } as ConversationReplay, prices);
    expect(cost).toMatchObject({ unpricedTurns: 3, usdWithout: 0, usdWith: 0, inputBefore: 32_500 });
  });
});
