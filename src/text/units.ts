import { SpillwayError } from '../errors.js';
import type { Unit } from './markers.js';
import {
  codePointCeil,
  codePointFloor,
  codePointLength,
  codePointPrefixEnd,
  codePointSuffixStart,
  utf8Length,
  utf8PrefixEnd,
  utf8SuffixStart,
} from './measure.js';
import { getTokenizer, type Tokenizer } from './tokenizers/index.js';

export type { Unit } from './markers.js';

/**
 * How one unit measures text and finds boundary-safe cuts in it. Every cut returned is on a
 * code point boundary, so no UTF-8 sequence or surrogate pair is ever split.
 */
export interface Measure {
  readonly unit: Unit;
  /** True when size(a + b) === size(a) + size(b) (bytes and chars; not tokens). */
  readonly additive: boolean;
  size(text: string): number;
  /** Exact when at most `limit`; otherwise some number greater than `limit`. */
  sizeUpTo(text: string, limit: number): number;
  /** End index of a longest prefix whose size is at most `max`. */
  prefixEnd(text: string, max: number): number;
  /** Start index of a longest suffix whose size is at most `max`. */
  suffixStart(text: string, max: number): number;
}

const bytes: Measure = {
  unit: 'bytes',
  additive: true,
  size: utf8Length,
  sizeUpTo: utf8Length,
  prefixEnd: (text, max) => utf8PrefixEnd(text, max),
  suffixStart: (text, max) => utf8SuffixStart(text, max),
};

const chars: Measure = {
  unit: 'chars',
  additive: true,
  size: codePointLength,
  sizeUpTo: codePointLength,
  prefixEnd: (text, max) => codePointPrefixEnd(text, max),
  suffixStart: (text, max) => codePointSuffixStart(text, max),
};

/**
 * Narrows a cut between `good` (fits) and `bad` (does not), in either direction, keeping cuts on
 * code point boundaries. Token counts of prefixes are not strictly monotonic, so this finds a cut
 * that fits next to one that does not: as close as BPE allows, in O(log n) counts.
 */
function bisect(text: string, good: number, bad: number, fits: (cut: number) => boolean): number {
  while (Math.abs(bad - good) > 1) {
    const half = (good + bad) >>> 1;
    let mid = codePointFloor(text, half);
    if (mid === Math.min(good, bad)) mid = codePointCeil(text, half);
    if (mid <= Math.min(good, bad) || mid >= Math.max(good, bad)) break;
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

function tokenMeasure(tokenizer: Tokenizer): Measure {
  const prefixFits = (text: string, max: number) => (end: number) =>
    tokenizer.countUpTo(text.slice(0, end), max) <= max;
  const suffixFits = (text: string, max: number) => (start: number) =>
    tokenizer.countUpTo(text.slice(start), max) <= max;
  return {
    unit: 'tokens',
    additive: false,
    size: (text) => tokenizer.count(text),
    sizeUpTo: (text, limit) => tokenizer.countUpTo(text, limit),
    prefixEnd(text, max) {
      if (max <= 0) return 0;
      const fits = prefixFits(text, max);
      // Grow a window from a guess of 4 units a token until it no longer fits, then bisect:
      // each count reads at most about `max` tokens of text, never the whole input.
      let good = 0;
      let bad = codePointCeil(text, Math.min(text.length, max * 4 + 16));
      while (fits(bad)) {
        if (bad >= text.length) return text.length;
        good = bad;
        bad = codePointCeil(text, Math.min(text.length, bad * 2));
      }
      return bisect(text, good, bad, fits);
    },
    suffixStart(text, max) {
      if (max <= 0) return text.length;
      const fits = suffixFits(text, max);
      let good = text.length;
      let span = max * 4 + 16;
      let bad = codePointFloor(text, Math.max(0, text.length - span));
      while (fits(bad)) {
        if (bad <= 0) return 0;
        good = bad;
        span *= 2;
        bad = codePointFloor(text, Math.max(0, text.length - span));
      }
      return bisect(text, good, bad, fits);
    },
  };
}

/**
 * The measure for a unit; `tokens` counts with the given tokenizer (default o200k).
 *
 * @example
 * const m = measureFor('bytes');
 * m.size('héllo'); // 6
 * 'héllo'.slice(0, m.prefixEnd('héllo', 2)); // 'h'
 */
export function measureFor(unit: Unit, tokenizer?: Tokenizer | string): Measure {
  switch (unit) {
    case 'bytes':
      return bytes;
    case 'chars':
      return chars;
    case 'tokens':
      return tokenMeasure(typeof tokenizer === 'object' ? tokenizer : getTokenizer(tokenizer));
    default:
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `unknown unit "${String(unit)}"; use bytes, chars or tokens`,
      );
  }
}
