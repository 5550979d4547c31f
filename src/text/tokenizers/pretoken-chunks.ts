import { codePointFloor } from '../measure.js';

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
/**
 * A stretch this long with no safe cut is one giant pre-token (a megabyte of `=` or of one
 * letter); BPE on it is quadratic, so it is split here, changing the count by about one token
 * per split (under 0.1% of a stretch this long).
 */
export const HARD_SPLIT = 8_192;
const SEARCH_STEP = 1_024;

/** The last safe cut in (lo, hi], or -1. */
function lastSafeCut(text: string, lo: number, hi: number): number {
  // Two units of context on each side so the look-arounds see whole code points.
  const from = Math.max(0, lo - 2);
  const slice = text.slice(from, Math.min(text.length, hi + 2));
  let best = -1;
  for (const m of slice.matchAll(SAFE_CUT)) {
    const at = from + m.index;
    if (at > hi) break;
    if (at > lo) best = at;
  }
  return best;
}

/** The first safe cut in (lo, hi], or -1. */
function firstSafeCut(text: string, lo: number, hi: number): number {
  for (let from = lo; from < hi; from += SEARCH_STEP) {
    const to = Math.min(hi, from + SEARCH_STEP);
    const offset = Math.max(0, from - 2);
    const slice = text.slice(offset, Math.min(text.length, to + 2));
    for (const m of slice.matchAll(SAFE_CUT)) {
      const at = offset + m.index;
      if (at > to) break;
      if (at > from) return at;
    }
  }
  return -1;
}

/**
 * The end of the chunk that starts at `start`: the last safe cut within `target` units, else
 * the first one within `hard` units, else a hard split at `hard` (one over-long pre-token),
 * or the end of the text.
 *
 * @example
 * let start = 0;
 * while (start < text.length) { const end = nextChunkEnd(text, start); use(text.slice(start, end)); start = end; }
 */
export function nextChunkEnd(text: string, start: number, target = CHUNK_TARGET, hard = HARD_SPLIT): number {
  if (text.length - start <= target) return text.length;
  const limit = start + target;
  for (let hi = limit; hi > start; hi -= SEARCH_STEP) {
    const cut = lastSafeCut(text, Math.max(start, hi - SEARCH_STEP), hi);
    if (cut > start) return cut;
  }
  if (hard > target) {
    const cut = firstSafeCut(text, limit, Math.min(text.length, start + hard));
    if (cut > start) return cut;
  }
  if (start + hard >= text.length) return text.length;
  const end = codePointFloor(text, start + hard);
  return end > start ? end : start + 2;
}
