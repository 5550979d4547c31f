import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trickyString } from '../../test-support/arbitraries.js';
import { statsTokens } from './estimate.js';
import { getTokenizer, heuristicTokenizer, memoTokenizer, TOKENIZER_NAMES } from './index.js';

describe('tokenizer registry and heuristic', () => {
  it('gives every named tokenizer and rejects unknown names with the valid ones', () => {
    for (const name of TOKENIZER_NAMES) expect(getTokenizer(name).name).toBe(name);
    expect(getTokenizer().name).toBe('o200k');
    expect(() => getTokenizer('gpt2')).toThrow(
      /unknown tokenizer "gpt2"; use one of: o200k, cl100k, heuristic/,
    );
  });

  it('heuristic is ceil(bytes / 4)', () => {
    expect(heuristicTokenizer.count('')).toBe(0);
    expect(heuristicTokenizer.count('abcd')).toBe(1);
    expect(heuristicTokenizer.count('abcde')).toBe(2);
    expect(heuristicTokenizer.count('😀😀')).toBe(2);
    expect(heuristicTokenizer.count('é'.repeat(3))).toBe(2);
  });

  it('heuristic countUpTo is exact under the limit and above it when over', () => {
    const text = 'é'.repeat(10_000);
    expect(heuristicTokenizer.countUpTo(text, 5000)).toBe(5000);
    expect(heuristicTokenizer.countUpTo(text, 4999)).toBeGreaterThan(4999);
    expect(heuristicTokenizer.countUpTo(text, 10)).toBeGreaterThan(10);
  });

  it('no tokenizer counts more tokens than the text has UTF-8 bytes (collapse skips counting on it)', () => {
    fc.assert(
      fc.property(trickyString(200), (text) => {
        for (const name of TOKENIZER_NAMES)
          expect(getTokenizer(name).count(text)).toBeLessThanOrEqual(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 500 },
    );
  });

  it('memoTokenizer counts a long text once, shared by every memo of the tokenizer, and agrees', () => {
    let calls = 0;
    const counting = {
      ...heuristicTokenizer,
      name: 'heuristic' as const,
      count: (t: string) => {
        calls++;
        return heuristicTokenizer.count(t);
      },
    };
    const a = memoTokenizer(counting);
    const b = memoTokenizer(counting);
    const long = `memo ${'x'.repeat(1000)} ${Math.random()}`;
    expect(a.count(long)).toBe(heuristicTokenizer.count(long));
    expect(b.count(long)).toBe(heuristicTokenizer.count(long));
    expect(calls).toBe(1);
    // Short texts are counted each time (hashing them costs as much).
    a.count('short');
    a.count('short');
    expect(calls).toBe(3);
  });

  it('memoTokenizer countUpTo keeps its contract whatever it remembered: exact up to the limit, over it past', () => {
    const o200k = getTokenizer('o200k');
    const limit = fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constant(Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: fc.integer({ min: 0, max: 3 }), limit }), { maxLength: 12 }),
        fc.string({ maxLength: 8 }),
        (calls, salt) => {
          const texts = [0, 1, 2, 3].map((k) => `${salt} memo ${k}: ${'word '.repeat(10 + k * 25)}`);
          const memo = memoTokenizer(o200k);
          for (const call of calls) {
            const text = texts[call.text] as string;
            const exact = o200k.count(text);
            const n = memo.countUpTo(text, call.limit);
            if (exact <= call.limit) expect(n).toBe(exact);
            else expect(n).toBeGreaterThan(call.limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('memoTokenizer remembers "more than the limit" and counts again only past it', () => {
    let calls = 0;
    const counting = {
      ...heuristicTokenizer,
      countUpTo: (t: string, limit: number) => {
        calls++;
        return heuristicTokenizer.countUpTo(t, limit);
      },
    };
    const memo = memoTokenizer(counting);
    const text = `${Math.random()} ${'y'.repeat(400)}`;
    expect(memo.countUpTo(text, 10)).toBeGreaterThan(10);
    expect(memo.countUpTo(text, 5)).toBeGreaterThan(5);
    expect(calls).toBe(1);
    expect(memo.countUpTo(text, 1000)).toBe(heuristicTokenizer.count(text));
    expect(memo.count(text)).toBe(heuristicTokenizer.count(text));
    expect(memo.countUpTo(text, 7)).toBe(heuristicTokenizer.count(text));
    expect(calls).toBe(2);
  });

  it('statsTokens counts a text up to 1 MiB whole, and estimates a larger one from samples of it', () => {
    const o200k = getTokenizer('o200k');
    const lines = Array.from(
      { length: 60_000 },
      (_, i) =>
        `${i % 50 === 0 ? 'error' : 'info'} [worker ${i % 7}] step ${i * 7919} of the build took ${i % 997} ms`,
    );
    const small = lines.slice(0, 1000).join('\n');
    expect(statsTokens(o200k, small)).toBe(o200k.count(small));
    const large = lines.join('\n');
    let longest = 0;
    const watched = {
      ...o200k,
      count: (text: string) => {
        longest = Math.max(longest, text.length);
        return o200k.count(text);
      },
    };
    const estimate = statsTokens(watched, large);
    expect(Math.abs(estimate / o200k.count(large) - 1)).toBeLessThan(0.02);
    expect(longest).toBeLessThanOrEqual(4096);
    expect(statsTokens(o200k, large)).toBe(estimate);
  });
});
