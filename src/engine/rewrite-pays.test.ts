import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cachePrices,
  chooseRewrites,
  expectedRemaining,
  MIN_REWRITE_SAVING,
  type PrefixEconomics,
  type RewriteCandidate,
} from './rewrite-pays.js';

/** Economics of a prefix of `perMessage` tokens a message up to `end`, Anthropic's prices. */
function economics(
  end: number,
  perMessage: number,
  over: Partial<Omit<PrefixEconomics, 'banked' | 'spend'>> & { banked?: number } = {},
): PrefixEconomics & { spent: number } {
  let banked = over.banked ?? Number.POSITIVE_INFINITY;
  const e = {
    read: 0.3,
    write: 3.75,
    remaining: 20,
    cold: false,
    tokensFrom: (p: number) => Math.max(0, end - p) * perMessage,
    ...over,
    spent: 0,
    banked: () => banked,
    spend(cost: number) {
      banked -= cost;
      e.spent += cost;
    },
  };
  return e;
}

const candidate = (position: number, saving: number, error = false): RewriteCandidate<string> => ({
  item: `r${position}${error ? 'e' : ''}`,
  position,
  saving,
  error,
});

describe('rewriting history only when it pays', () => {
  it('never takes out a result that saves under the minimum, even on a cold cache', () => {
    const e = economics(40, 100, { cold: true });
    expect(chooseRewrites([candidate(1, MIN_REWRITE_SAVING - 1), candidate(2, 50)], e).size).toBe(0);
  });

  it('masks a large old result when the remaining requests repay the writes, not when few remain', () => {
    // 70,000 tokens cached from message 30: 50,000 written again at 3.75 instead of read at 0.3.
    const big = [candidate(30, 20_000)];
    expect(chooseRewrites(big, economics(100, 1000, { remaining: 80 }))).toEqual(new Set(['r30']));
    expect(chooseRewrites(big, economics(100, 1000, { remaining: 20 })).size).toBe(0);
    // Rewriting from the start of a long prefix for the same saving does not pay.
    expect(chooseRewrites([candidate(0, 20_000)], economics(200, 1000, { remaining: 20 })).size).toBe(0);
  });

  it('waits when what was banked would not cover the rewrite were the conversation to end now, and spends it when made', () => {
    const big = [candidate(30, 20_000)];
    expect(chooseRewrites(big, economics(60, 1000, { banked: 0 })).size).toBe(0);
    const e = economics(60, 1000, { banked: 1e9 });
    expect(chooseRewrites(big, e).size).toBe(1);
    expect(e.spent).toBeCloseTo(10_000 * (3.75 - 0.3));
  });

  it('keeps an error output while a larger result that is not one stays', () => {
    const e = economics(40, 500, { remaining: 40 });
    const chosen = chooseRewrites([candidate(2, 900), candidate(30, 9000), candidate(31, 1000, true)], e);
    // From 30 on pays; the 900-token result at 2 stays, so an error larger than it may go.
    expect(chosen.has('r30')).toBe(true);
    expect(chosen.has('r31e')).toBe(true);
    // A 5,000-token result at 2 that does not pay to take out keeps the 1,000-token error.
    const kept = chooseRewrites(
      [candidate(2, 5000), candidate(30, 9000), candidate(31, 1000, true)],
      economics(40, 2000, { remaining: 40 }),
    );
    expect([...kept]).toEqual(['r30']);
  });

  it('any candidates: what it takes pays by its own estimate, leaves no larger non-error before an error it takes, and nothing small', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(60), fc.nat(30_000), fc.boolean()), { maxLength: 20 }),
        fc.nat(80),
        fc.integer({ min: 1, max: 3000 }),
        fc.boolean(),
        (raw, remaining, perMessage, cold) => {
          const candidates = raw.map(([p, s, err], i) => ({
            item: `c${i}`,
            position: p,
            saving: s,
            error: err,
          }));
          const e = economics(61, perMessage, { remaining, cold });
          const chosen = chooseRewrites(candidates, e);
          const taken = candidates.filter((c) => chosen.has(c.item));
          if (taken.length === 0) return;
          expect(taken.every((c) => c.saving >= MIN_REWRITE_SAVING)).toBe(true);
          const from = Math.min(...taken.map((c) => c.position));
          const saved = taken.reduce((a, c) => a + c.saving, 0);
          const writes = cold ? 0 : Math.max(0, e.tokensFrom(from) - saved) * (e.write - e.read);
          expect(saved * e.read * (1 + remaining)).toBeGreaterThan(writes);
          for (const err of taken.filter((c) => c.error))
            for (const other of candidates)
              if (!other.error && !chosen.has(other.item) && other.saving >= MIN_REWRITE_SAVING)
                expect(other.saving).toBeLessThanOrEqual(err.saving);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('prices a model from the table, and an unknown one at the dearest ratio', () => {
    expect(cachePrices('claude-sonnet-4-5')).toEqual({ read: 0.3, write: 3.75 });
    expect(cachePrices('made-up-model')).toEqual({ read: 0.1, write: 1.25 });
    expect(expectedRemaining([{ position: 2 }, { position: 2 }, { position: 4 }, { position: 6 }])).toBe(1);
  });
});
