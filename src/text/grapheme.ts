import { codePointCeil, codePointFloor } from './measure.js';

// Grapheme rules mostly look at two neighbours, but emoji ZWJ sequences and regional-indicator
// pairs look further back; a window of this many code units before the cut, with the first
// boundary after an artificial window start ignored, is enough for every real cluster.
const LOOK_BEHIND = 64;
const LOOK_AHEAD = 64;
// Past this a "cluster" is adversarial (thousands of combining marks); splitting it at a code
// point is the honest answer, and segmenting further would make a cut unbounded.
const MAX_WINDOW = 4096;

let shared: Intl.Segmenter | undefined;
function segmenter(): Intl.Segmenter {
  shared ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return shared;
}

/** Boundaries in text[lo, hi) as absolute indexes, trusting only those a partial window cannot fake. */
function boundaries(text: string, lo: number, hi: number): number[] {
  const out: number[] = [];
  let first = true;
  for (const { index } of segmenter().segment(text.slice(lo, hi))) {
    const b = lo + index;
    // The window's own start, and the first boundary after a start that may sit mid-cluster,
    // are artefacts of the window, not of the text.
    if (lo > 0 && (b === lo || first)) {
      if (b !== lo) first = false;
      continue;
    }
    first = false;
    out.push(b);
  }
  if (hi >= text.length) out.push(text.length);
  return out;
}

/**
 * The largest grapheme-cluster boundary at or before `pos`, found by segmenting only a small
 * window around it (Intl.Segmenter over a whole large string is super-linear on Node 20).
 *
 * @example
 * const s = 'ab👍🏽c';
 * graphemeBoundaryAtOrBefore(s, 4); // 2: the cut moves before the emoji and its skin tone
 */
export function graphemeBoundaryAtOrBefore(text: string, pos: number): number {
  if (pos <= 0) return 0;
  if (pos >= text.length) return text.length;
  for (let back = LOOK_BEHIND; ; back *= 4) {
    const lo = Math.max(0, pos - back);
    const hi = Math.min(text.length, pos + LOOK_AHEAD);
    let best = -1;
    for (const b of boundaries(text, lo, hi)) {
      if (b > pos) break;
      best = b;
    }
    if (best >= 0) return best;
    if (lo === 0) return 0;
    if (back >= MAX_WINDOW) return codePointFloor(text, pos);
  }
}

/**
 * The smallest grapheme-cluster boundary at or after `pos`, segmenting only a small window.
 *
 * @example
 * graphemeBoundaryAtOrAfter('ab👍🏽c', 3); // 6: the cut moves after the emoji and its skin tone
 */
export function graphemeBoundaryAtOrAfter(text: string, pos: number): number {
  if (pos <= 0) return 0;
  if (pos >= text.length) return text.length;
  for (let ahead = LOOK_AHEAD; ; ahead *= 4) {
    const lo = Math.max(0, pos - LOOK_BEHIND);
    const hi = Math.min(text.length, pos + ahead);
    for (const b of boundaries(text, lo, hi)) {
      // A boundary at the window's end is only real at the end of the text.
      if (b >= pos && (b < hi || hi === text.length)) return b;
    }
    if (hi === text.length) return text.length;
    if (ahead >= MAX_WINDOW) return codePointCeil(text, pos);
  }
}

const SEGMENT_CHUNK = 4096;

/**
 * Number of user-perceived characters (extended grapheme clusters). The string is segmented in
 * bounded chunks that end on cluster boundaries, because Intl.Segmenter over one huge string is
 * super-linear on Node 20.
 *
 * @example
 * graphemeLength('👩‍👩‍👧e\u0301'); // 2
 */
export function graphemeLength(text: string): number {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let count = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    if (text.length - start > SEGMENT_CHUNK) {
      end = graphemeBoundaryAtOrBefore(text, start + SEGMENT_CHUNK);
      if (end <= start) end = Math.min(text.length, start + SEGMENT_CHUNK);
    }
    for (const _ of segmenter.segment(text.slice(start, end))) count++;
    start = end;
  }
  return count;
}
