import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trickyString } from '../test-support/arbitraries.js';
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './grapheme.js';
import { parseSnipMarker, snipMarker, type Unit } from './markers.js';
import { snip, snipDetailed } from './snip.js';
import { getTokenizer } from './tokenizers/index.js';
import { measureFor } from './units.js';

const UNITS: Unit[] = ['bytes', 'chars', 'tokens'];

/** Every invariant snip promises, checked on one call. */
function checkSnip(
  text: string,
  budget: number,
  unit: Unit,
  opts: { note?: string; headRatio?: number; graphemes?: boolean; tokenizer?: string } = {},
) {
  const m = measureFor(unit, opts.tokenizer);
  const r = snipDetailed(text, { budget, unit, ...opts });
  expect(m.size(r.text)).toBeLessThanOrEqual(budget);
  expect(r.text.isWellFormed()).toBe(text.isWellFormed());
  if (unit === 'bytes' && text.isWellFormed()) {
    // Valid UTF-8: encoding and decoding gives the same string back, and no U+FFFD appeared.
    expect(Buffer.from(r.text, 'utf8').toString('utf8')).toBe(r.text);
  }
  if (m.size(text) <= budget) {
    expect(r.snipped).toBe(false);
    expect(r.text).toBe(text);
    return r;
  }
  expect(r.snipped).toBe(true);
  const head = text.slice(0, r.headEnd);
  const tail = text.slice(r.tailStart);
  expect(r.headEnd).toBeLessThanOrEqual(r.tailStart);
  if (r.headEnd === r.tailStart && !r.text.includes('[...snipped')) {
    // Plain cut of the head: the budget had no room for a marker.
    expect(text.startsWith(r.text)).toBe(true);
  } else {
    const marker = snipMarker(r.removed, unit, opts.note);
    expect(r.text).toBe(head + marker + tail);
    expect(r.removed).toBe(m.size(text.slice(r.headEnd, r.tailStart)));
    const parsed = parseSnipMarker(r.text.slice(head.length));
    expect(parsed?.removed).toBe(r.removed);
  }
  // Same input, same bytes.
  expect(snip(text, { budget, unit, ...opts })).toBe(r.text);
  return r;
}

describe('snip', () => {
  it('returns text at or under budget unchanged, in every unit', () => {
    for (const unit of UNITS) {
      const text = 'hello wörld 😀';
      const size = measureFor(unit).size(text);
      expect(snip(text, { budget: size, unit })).toBe(text);
      expect(snip(text, { budget: size + 10, unit })).toBe(text);
      expect(snip('', { budget: 0, unit })).toBe('');
    }
  });

  it('keeps head and tail around a marker that says exactly what was removed', () => {
    const text = 'a'.repeat(100);
    const out = snip(text, { budget: 40 });
    expect(out).toBe(`${'a'.repeat(7)}\n[...snipped 86 bytes...]\n${'a'.repeat(7)}`);
    expect(Buffer.byteLength(out)).toBe(40);
  });

  it('puts the note in the marker', () => {
    const out = snip('x'.repeat(500), { budget: 200, note: 'full output in /tmp/x.txt' });
    expect(out).toMatch(/\n\[\.\.\.snipped \d+ bytes\. full output in \/tmp\/x\.txt\]\n/);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(200);
  });

  it('holds the celeste tiny caps: 1, 2, 5, 16 and 31 bytes are never exceeded', () => {
    const inputs = [
      'x'.repeat(1000),
      'é'.repeat(500),
      '😀'.repeat(300),
      '中文'.repeat(200),
      'ab\n'.repeat(400),
    ];
    for (const text of inputs) {
      for (const cap of [1, 2, 5, 16, 31]) {
        const out = snip(text, { budget: cap });
        expect(Buffer.byteLength(out)).toBeLessThanOrEqual(cap);
        expect(text.startsWith(out) || out.includes('[...snipped')).toBe(true);
        expect(out.isWellFormed()).toBe(true);
      }
    }
    // A 1-byte cap over a 4-byte character cannot keep any of it.
    expect(snip('😀😀', { budget: 1 })).toBe('');
  });

  it('splits the room by headRatio', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const headHeavy = snipDetailed(text, { budget: 300, headRatio: 0.9 });
    const tailHeavy = snipDetailed(text, { budget: 300, headRatio: 0.1 });
    expect(headHeavy.headEnd).toBeGreaterThan(tailHeavy.headEnd);
    expect(text.length - headHeavy.tailStart).toBeLessThan(text.length - tailHeavy.tailStart);
    expect(snip(text, { budget: 300, headRatio: 0 }).startsWith('\n[...snipped')).toBe(true);
    expect(snip(text, { budget: 300, headRatio: 1 }).endsWith('...]\n')).toBe(true);
  });

  it('rejects a negative or non-finite budget and a headRatio outside 0..1', () => {
    expect(() => snip('x', { budget: -1 })).toThrow(/budget must be a number >= 0/);
    expect(() => snip('x', { budget: Number.NaN })).toThrow(/budget/);
    expect(() => snip('x', { budget: 1, headRatio: 1.5 })).toThrow(/headRatio/);
  });

  it('in tokens, fits the budget by the real count of the whole output', () => {
    const log = Array.from(
      { length: 5000 },
      (_, i) => `2026-11-30T01:${i % 60} INFO worker=${i % 7} took ${(i * 13) % 997}ms`,
    ).join('\n');
    for (const name of ['o200k', 'cl100k', 'heuristic']) {
      const t = getTokenizer(name);
      for (const budget of [0, 5, 12, 13, 50, 100, 1000]) {
        const r = checkSnip(log, budget, 'tokens', { tokenizer: name });
        expect(t.count(r.text)).toBeLessThanOrEqual(budget);
      }
      // Close to the budget, not just under it: at most a handful of tokens are left unused.
      expect(t.count(snip(log, { budget: 1000, unit: 'tokens', tokenizer: name }))).toBeGreaterThan(990);
    }
  });

  it('never splits a grapheme cluster in grapheme mode', () => {
    const family = '👩‍👩‍👧‍👦';
    const text = `${family}x`.repeat(40);
    for (const unit of UNITS) {
      for (const budget of [30, 40, 57, 80, 123]) {
        const r = checkSnip(text, budget, unit, { graphemes: true });
        if (!r.snipped) continue;
        expect(graphemeBoundaryAtOrBefore(text, r.headEnd)).toBe(r.headEnd);
        expect(graphemeBoundaryAtOrAfter(text, r.tailStart)).toBe(r.tailStart);
      }
    }
  });

  describe('properties', () => {
    for (const unit of ['bytes', 'chars'] as const) {
      it(`in ${unit}: never over budget for every budget from 0 up; head a prefix, tail a suffix, N exact`, () => {
        fc.assert(
          fc.property(
            trickyString(),
            fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.boolean(),
            (text, note, headRatio, graphemes) => {
              const size = measureFor(unit).size(text);
              for (let budget = 0; budget <= size + 1; budget++)
                checkSnip(text, budget, unit, { note, headRatio, graphemes });
            },
          ),
          { numRuns: 150 },
        );
      });
    }

    it('in tokens (o200k and heuristic): never over budget; head a prefix, tail a suffix, N exact', () => {
      fc.assert(
        fc.property(
          trickyString(40),
          fc.constantFrom('o200k', 'heuristic'),
          fc.boolean(),
          (text, tokenizer, graphemes) => {
            const size = measureFor('tokens', tokenizer).size(text);
            for (let budget = 0; budget <= size + 1; budget++)
              checkSnip(text, budget, 'tokens', { tokenizer, graphemes });
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});
