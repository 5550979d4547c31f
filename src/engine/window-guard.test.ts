import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { contentText } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import type { Tokenizer } from '../text/tokenizers/tokenizer.js';
import { Calibration } from './calibration.js';
import { resolveEngineConfig } from './config.js';
import { ConversationEngine } from './conversation.js';
import { type GuardCandidate, MIN_COLLAPSE_BUDGET, planWindowGuard, windowCap } from './window-guard.js';

const results = (tokens: number[], recent = 2): GuardCandidate[] =>
  tokens.map((t, index) => ({
    index,
    tokens: t,
    recent: index >= tokens.length - recent,
    movable: true,
    collapsible: true,
  }));

describe('window guard plan', () => {
  it('does nothing under the limit', () => {
    const plan = planWindowGuard(results([1000, 1000]), {
      otherTokens: 500,
      limit: 3000,
      ratio: 1,
      maskTokens: 30,
    });
    expect(plan).toMatchObject({ fits: true, mask: [], collapse: [], before: 2500, after: 2500 });
  });

  it('masks the oldest first, never the recent ones, and stops once a quarter of the limit is free', () => {
    const plan = planWindowGuard(results([3000, 3000, 3000, 3000, 3000, 3000], 2), {
      otherTokens: 1000,
      limit: 16_000,
      ratio: 1,
      maskTokens: 30,
    });
    // 19,000 -> 16,030 (over 12,000) -> 13,060 -> 10,090: room for the next turns.
    expect(plan.mask).toEqual([0, 1, 2]);
    expect(plan.collapse).toEqual([]);
    expect(plan.fits).toBe(true);
    expect(plan.after).toBe(1000 + 90 + 9000);
  });

  it('then collapses the largest harder, recent ones last; calibrated with the ratio', () => {
    const plan = planWindowGuard(results([2000, 9000, 4000, 8000], 2), {
      otherTokens: 0,
      limit: 6000,
      ratio: 1.5,
      maskTokens: 30,
    });
    expect(plan.mask).toEqual([0, 1]);
    // Still over: the recent ones are collapsed, the larger first.
    expect(plan.collapse.map((c) => c.index)).toEqual([3, 2]);
    expect(plan.after).toBe(Math.ceil((60 + 2000 + 1000) * 1.5));
    expect(plan.collapse[0]?.budget).toBe(2000);
    expect(plan.fits).toBe(true);
    expect(plan.after).toBeLessThanOrEqual(6000);
  });

  it("clears old calls' inputs after masking, asking for each only as needed, before collapsing", () => {
    const asked: number[] = [];
    function* inputs() {
      for (const index of [0, 1, 2, 3]) {
        asked.push(index);
        yield { index, saved: 3000 };
      }
    }
    const limits = { otherTokens: 12_000, limit: 16_000, ratio: 1, maskTokens: 30 };
    // 21,000 to bring under 12,000: masking the two old results frees 5,940, two inputs the rest.
    const plan = planWindowGuard(results([3000, 3000, 3000], 1), limits, inputs());
    expect(plan).toMatchObject({ mask: [0, 1], clear: [0, 1], collapse: [], fits: true });
    expect(asked).toEqual([0, 1]);
    // When masking is enough, no call is even planned.
    asked.length = 0;
    const enough = planWindowGuard(results([9000, 9000, 1000], 1), { ...limits, otherTokens: 0 }, inputs());
    expect(enough.clear).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('says when tool results alone cannot make it fit', () => {
    const plan = planWindowGuard(results([500, 500]), {
      otherTokens: 10_000,
      limit: 5000,
      ratio: 1,
      maskTokens: 30,
    });
    expect(plan.fits).toBe(false);
    const frozen = results([4000, 4000]).map((c) => ({ ...c, movable: false }));
    expect(planWindowGuard(frozen, { otherTokens: 0, limit: 5000, ratio: 1, maskTokens: 30 }).fits).toBe(
      false,
    );
  });

  it('never plans a fit that is over the limit, and never touches what it may not', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tokens: fc.integer({ min: 0, max: 20_000 }),
            movable: fc.boolean(),
            collapsible: fc.boolean(),
          }),
          {
            maxLength: 30,
          },
        ),
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1000, max: 100_000 }),
        fc.double({ min: 0.5, max: 2, noNaN: true }),
        (items, otherTokens, limit, ratio) => {
          const candidates = items.map((it, index) => ({ ...it, index, recent: index >= items.length - 3 }));
          const plan = planWindowGuard(candidates, { otherTokens, limit, ratio, maskTokens: 30 });
          if (plan.fits) expect(plan.after).toBeLessThanOrEqual(limit);
          for (const i of plan.mask) expect(candidates[i]?.movable && !candidates[i]?.recent).toBe(true);
          for (const { index, budget } of plan.collapse) {
            expect(candidates[index]?.movable && candidates[index]?.collapsible).toBe(true);
            expect(budget).toBeGreaterThanOrEqual(MIN_COLLAPSE_BUDGET);
            expect(plan.mask).not.toContain(index);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('window guard on a result past the window', () => {
  it('fits one result of many windows, reading about one window of it, and it stays recallable', async () => {
    const o200k = getTokenizer('o200k');
    // How far each count of a text of at least 100,000 characters was allowed to read.
    const bigReads: number[] = [];
    const watched: Tokenizer = {
      name: 'o200k',
      count: (text) => {
        if (text.length >= 100_000) bigReads.push(Number.POSITIVE_INFINITY);
        return o200k.count(text);
      },
      countUpTo: (text, limit) => {
        if (text.length >= 100_000) bigReads.push(limit);
        return o200k.countUpTo(text, limit);
      },
    };
    // No stage shortens it first: the guard is all there is between it and the provider.
    const config = { ...resolveEngineConfig({ stages: [] }), tokenizer: watched };
    const store = new MemoryStore();
    const engine = new ConversationEngine({ config, store, session: 'huge' });
    const text = Array.from(
      { length: 40_000 },
      (_, i) => `[${i}] step ${i * 7919} done, checksum ${i * 104729}`,
    ).join('\n');
    const huge = { id: 'toolu_huge', tool: 'Bash', content: `${text}\nerror: the build failed`, position: 2 };
    const limit = 8000;
    const exact = o200k.count(huge.content);
    expect(exact).toBeGreaterThan(40 * limit);
    const fit = await engine.fitWindow([huge], [huge], {
      requestTokens: windowCap(limit, 1) + 20,
      limit,
      ratio: 1,
    });
    // A quarter of its exact size would still be five windows: the guard collapses it to a
    // quarter of the window instead, and says so.
    expect(fit.plan.fits).toBe(true);
    expect(fit.collapsed).toBe(1);
    const out = contentText(fit.results[0]?.content ?? '');
    expect(o200k.count(out)).toBeLessThanOrEqual(limit / 4 + 1);
    expect(out).toContain('error: the build failed');
    const [id] = markerIds(out);
    expect((await recallAll(id ?? '', { store })).toString('utf8')).toBe(huge.content);
    // It was counted up to the window, never read whole.
    expect(bigReads.length).toBeGreaterThan(0);
    for (const reach of bigReads) expect(reach).toBeLessThanOrEqual(windowCap(limit, 1));

    // A tool the config exempts is left alone, and not even counted: nothing can make it fit.
    bigReads.length = 0;
    const exempt = new ConversationEngine({
      config: {
        ...resolveEngineConfig({ stages: [], tools: { Bash: { exempt: true } } }),
        tokenizer: watched,
      },
      store,
      session: 'huge-exempt',
    });
    const left = await exempt.fitWindow([huge], [huge], {
      requestTokens: windowCap(limit, 1) + 20,
      limit,
      ratio: 1,
    });
    expect(left.plan.fits).toBe(false);
    expect(left.results[0]).toBe(huge);
    expect(bigReads).toEqual([]);
  });
});

describe('calibration', () => {
  it('converges after one answer, per model, and starts new conversations from the prior', () => {
    const prior = new Calibration();
    const a = new Calibration(prior);
    expect(a.ratio('gpt-5')).toBe(1);
    expect(a.ratio('claude-sonnet-4-5')).toBe(1.25);
    const sample = a.observe('gpt-5', 1000, 1370);
    expect(sample).toMatchObject({ ratio: 1.37 });
    expect(sample?.rawError).toBeCloseTo(370 / 1370);
    expect(a.estimate('gpt-5', 2000)).toBe(2740);
    expect(new Calibration(prior).ratio('gpt-5')).toBe(1.37);
    expect(a.ratio('gpt-4o')).toBe(1);
    // Nonsense is not learned; wild factors are bounded.
    expect(a.observe('gpt-5', 0, 10)).toBeUndefined();
    a.observe('gpt-5', 10, 10_000);
    expect(a.ratio('gpt-5')).toBe(4);
  });
});
