import { eachMatch } from './each-match.js';

/**
 * Positions where both o200k and cl100k pre-tokenizers always end one pre-token and start the
 * next, whatever comes before or after: the split regexes have no look-behind, and their
 * look-aheads only concern whitespace runs, which cannot cross these positions. So counting the
 * two sides separately gives exactly the count of the whole.
 *
 * - after a letter, before anything but a letter, a combining mark or `'` (o200k glues `'s`);
 * - after a digit, before a non-digit (digit runs end there);
 * - after punctuation, before a digit;
 * - after any non-space, before a space or tab (not `\r`/`\n`: punctuation absorbs those).
 *
 * The property test in bpe.test.ts checks this against gpt-tokenizer on random text.
 */
const SAFE_CUT =
  /(?<=\p{L})(?=[^\p{L}\p{M}'])|(?<=\p{N})(?=\P{N})|(?<=[^\s\p{L}\p{N}])(?=\p{N})|(?<=\S)(?=[^\S\r\n])/gu;

/** Chunks aim at this many UTF-16 units: big enough to amortise a call, small enough to stop early. */
export const CHUNK_TARGET = 16_384;
const SEARCH_STEP = 1_024;

/** A run of this many letters, symbols or spaces may be one long pre-token. */
const LONG_RUN = 128;

/**
 * Whether `chunk` may hold a pre-token long enough to make the library's byte-pair merge slow
 * (it is quadratic in a pre-token's length). Every pre-token longer than about 2 x LONG_RUN holds
 * a run of LONG_RUN letters, symbols or spaces. Only speed depends on this answer, never the
 * count: both ways of counting are exact. So it errs on the side of yes (any non-ASCII unit counts
 * as a letter and a symbol) and is a plain loop, ten times faster than a Unicode regex.
 *
 * @example
 * mayHoldLongPretoken('a'.repeat(1000)); // true
 */
export function mayHoldLongPretoken(chunk: string): boolean {
  let letters = 0;
  let symbols = 0;
  let spaces = 0;
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk.charCodeAt(i);
    if (c >= 0x80) {
      letters++;
      symbols++;
      spaces = 0;
    } else if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) {
      letters++;
      symbols = spaces = 0;
    } else if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) {
      spaces++;
      letters = symbols = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      letters = symbols = spaces = 0;
    } else {
      symbols++;
      letters = spaces = 0;
    }
    if (letters >= LONG_RUN || symbols >= LONG_RUN || spaces >= LONG_RUN) return true;
  }
  return false;
}

/**
 * The last safe cut in (lo, hi], or -1: counting the text on either side of it gives the count
 * of the whole.
 *
 * @example
 * lastSafeCut('error: boom', 0, 11); // 6 (before the space)
 */
export function lastSafeCut(text: string, lo: number, hi: number): number {
  // Two units of context on each side so the look-arounds see whole code points.
  const from = Math.max(0, lo - 2);
  const slice = text.slice(from, Math.min(text.length, hi + 2));
  let best = -1;
  eachMatch(SAFE_CUT, slice, (m) => {
    const at = from + m.index;
    if (at > hi) return false;
    if (at > lo) best = at;
    return true;
  });
  return best;
}

/** The first safe cut after `lo`, or the end of the text. */
function firstSafeCut(text: string, lo: number): number {
  for (let from = lo; from < text.length; from += SEARCH_STEP) {
    const to = Math.min(text.length, from + SEARCH_STEP);
    const offset = Math.max(0, from - 2);
    const slice = text.slice(offset, Math.min(text.length, to + 2));
    let found = -1;
    eachMatch(SAFE_CUT, slice, (m) => {
      const at = offset + m.index;
      if (at > from && at <= to) found = at;
      return at <= from;
    });
    if (found >= 0) return found;
  }
  return text.length;
}

/**
 * The end of the chunk that starts at `start`: the last safe cut within `target` units, else the
 * first one after (a stretch with no safe cut is one chunk, however long), or the end of the text.
 *
 * @example
 * let start = 0;
 * while (start < text.length) { const end = nextChunkEnd(text, start); use(text.slice(start, end)); start = end; }
 */
export function nextChunkEnd(text: string, start: number, target = CHUNK_TARGET): number {
  if (text.length - start <= target) return text.length;
  const limit = start + target;
  for (let hi = limit; hi > start; hi -= SEARCH_STEP) {
    const cut = lastSafeCut(text, Math.max(start, hi - SEARCH_STEP), hi);
    if (cut > start) return cut;
  }
  return firstSafeCut(text, limit);
}
