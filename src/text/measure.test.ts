import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trickyString } from '../test-support/arbitraries.js';
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore, graphemeLength } from './grapheme.js';
import {
  codePointLength,
  codePointPrefixEnd,
  codePointSuffixStart,
  decodeUtf8,
  isInsidePair,
  utf8Length,
  utf8PrefixEnd,
  utf8SuffixStart,
} from './measure.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const fullBoundaries = (s: string) => {
  const b = [...segmenter.segment(s)].map((x) => x.index);
  b.push(s.length);
  return b;
};

describe('measures', () => {
  it('count bytes, code points and graphemes', () => {
    expect(utf8Length('héllo')).toBe(6);
    expect(codePointLength('a😀b')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2);
    expect(graphemeLength('👩‍👩‍👧e\u0301🇫🇷')).toBe(3);
    expect(graphemeLength('')).toBe(0);
  });

  it('agree with the platform on random text', () => {
    fc.assert(
      fc.property(trickyString(), (s) => {
        expect(utf8Length(s)).toBe(Buffer.from(s, 'utf8').length);
        expect(codePointLength(s)).toBe([...s].length);
        expect(graphemeLength(s)).toBe([...segmenter.segment(s)].length);
      }),
    );
  });

  it('count graphemes of long text in chunks without changing the answer', () => {
    const s = '👩‍👩‍👧‍👦e\u0301🇫🇷中x'.repeat(2000);
    expect(graphemeLength(s)).toBe([...segmenter.segment(s)].length);
  });
});

describe('boundary-safe cuts', () => {
  it('byte cuts are the longest prefix/suffix that fit and never split a character', () => {
    fc.assert(
      fc.property(trickyString(), fc.nat(300), (s, max) => {
        const end = utf8PrefixEnd(s, max);
        const start = utf8SuffixStart(s, max);
        expect(isInsidePair(s, end)).toBe(false);
        expect(isInsidePair(s, start)).toBe(false);
        expect(utf8Length(s.slice(0, end))).toBeLessThanOrEqual(max);
        expect(utf8Length(s.slice(start))).toBeLessThanOrEqual(max);
        // Longest: one more code point would not fit.
        if (end < s.length)
          expect(utf8Length(s.slice(0, end + (isInsidePair(s, end + 1) ? 2 : 1)))).toBeGreaterThan(max);
        if (start > 0)
          expect(utf8Length(s.slice(start - (isInsidePair(s, start - 1) ? 2 : 1)))).toBeGreaterThan(max);
      }),
    );
  });

  it('code point cuts keep exactly that many code points', () => {
    fc.assert(
      fc.property(trickyString(), fc.nat(100), (s, max) => {
        const n = Math.min(max, codePointLength(s));
        expect(codePointLength(s.slice(0, codePointPrefixEnd(s, max)))).toBe(n);
        expect(codePointLength(s.slice(codePointSuffixStart(s, max)))).toBe(n);
        expect(isInsidePair(s, codePointPrefixEnd(s, max))).toBe(false);
        // The cut after n code points is the cut before the last (length - n): either end finds it.
        expect(codePointSuffixStart(s, codePointLength(s) - n)).toBe(codePointPrefixEnd(s, n));
      }),
      { numRuns: 1000 },
    );
  });

  it('grapheme snapping finds the same boundaries as segmenting the whole string', () => {
    fc.assert(
      fc.property(trickyString(), fc.nat(400), (s, at) => {
        const pos = Math.min(at, s.length);
        const all = fullBoundaries(s);
        const before = Math.max(...all.filter((b) => b <= pos));
        const after = Math.min(...all.filter((b) => b >= pos));
        expect(graphemeBoundaryAtOrBefore(s, pos)).toBe(before);
        expect(graphemeBoundaryAtOrAfter(s, pos)).toBe(after);
      }),
      { numRuns: 500 },
    );
  });

  it('grapheme snapping works far into a long string (a small window, not the whole text)', () => {
    const s = `${'x'.repeat(100_000)}👩‍👩‍👧‍👦${'y'.repeat(100_000)}`;
    expect(graphemeBoundaryAtOrBefore(s, 100_003)).toBe(100_000);
    expect(graphemeBoundaryAtOrAfter(s, 100_003)).toBe(100_011);
  });

  it('property: decodeUtf8 gives what toString gives, for any bytes, valid or not, short or long', () => {
    // Long inputs (over 4 KiB, where the transcoder is used) are a generated piece repeated.
    const long = (piece: Uint8Array) =>
      Buffer.concat(Array(Math.ceil(70_000 / Math.max(1, piece.length))).fill(Buffer.from(piece)));
    fc.assert(
      fc.property(trickyString(), fc.uint8Array({ maxLength: 64 }), (text, bytes) => {
        for (const input of [Buffer.from(text), long(Buffer.from(text)), Buffer.from(bytes), long(bytes)]) {
          expect(decodeUtf8(input)).toBe(input.toString('utf8'));
        }
      }),
      { numRuns: 200 },
    );
  });
});
