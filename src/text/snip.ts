import { SpillwayError } from '../errors.js';
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './grapheme.js';
import { snipMarker, type Unit } from './markers.js';
import type { Tokenizer } from './tokenizers/index.js';
import { measureFor } from './units.js';

/** Options of {@link snip}. */
export interface SnipOptions {
  /** The most the result may take, in `unit`. */
  budget: number;
  /** `bytes` (UTF-8, the default), `chars` (code points) or `tokens`. */
  unit?: Unit;
  /** Tokenizer (or its name) for `tokens`; default o200k. */
  tokenizer?: Tokenizer | string;
  /** Goes into the marker: why the middle is gone and how to get it back. */
  note?: string;
  /** Share of the room left by the marker that goes to the head; default 0.5. */
  headRatio?: number;
  /** Keep grapheme clusters (emoji with ZWJ, combining marks) whole at the cuts. */
  graphemes?: boolean;
}

/** What {@link snipDetailed} did. */
export interface SnipResult {
  text: string;
  snipped: boolean;
  /** How much was removed, in the unit (0 when unchanged). */
  removed: number;
  /** Index in the input where the head ends and where the tail starts. */
  headEnd: number;
  tailStart: number;
}

// Token counts are not additive across the joins, so a token snip may need to shrink its
// window a few times; each retry takes away at least the measured overshoot.
const MAX_FITS = 8;

function checkOptions(options: SnipOptions): { budget: number; unit: Unit; headRatio: number } {
  const { budget, unit = 'bytes', headRatio = 0.5 } = options;
  if (!Number.isFinite(budget) || budget < 0) {
    throw new SpillwayError('SPILLWAY_BAD_CONFIG', `snip budget must be a number >= 0, got ${budget}`);
  }
  if (!Number.isFinite(headRatio) || headRatio < 0 || headRatio > 1) {
    throw new SpillwayError('SPILLWAY_BAD_CONFIG', `headRatio must be between 0 and 1, got ${headRatio}`);
  }
  return { budget: Math.floor(budget), unit, headRatio };
}

/**
 * Like {@link snip}, and also says what it removed and where it cut.
 *
 * @example
 * const r = snipDetailed(log, { budget: 4096 });
 * if (r.snipped) console.error(`removed ${r.removed} bytes`);
 */
export function snipDetailed(text: string, options: SnipOptions): SnipResult {
  const { budget, unit, headRatio } = checkOptions(options);
  const m = measureFor(unit, options.tokenizer);
  const total = m.sizeUpTo(text, budget);
  if (total <= budget)
    return { text, snipped: false, removed: 0, headEnd: text.length, tailStart: text.length };

  const headAt = (max: number) => {
    const end = m.prefixEnd(text, max);
    return options.graphemes ? graphemeBoundaryAtOrBefore(text, end) : end;
  };
  const tailAt = (max: number) => {
    const start = m.suffixStart(text, max);
    return options.graphemes ? graphemeBoundaryAtOrAfter(text, start) : start;
  };
  const plainCut = (): SnipResult => {
    const end = headAt(budget);
    return {
      text: text.slice(0, end),
      snipped: true,
      removed: m.size(text.slice(end)),
      headEnd: end,
      tailStart: end,
    };
  };

  // Fit head and tail around a marker assumed to take `markerSize`; the real marker must not be
  // larger, or the attempt is refused.
  const fitAround = (markerSize: number): SnipResult | null => {
    let shrink = 0;
    for (let attempt = 0; attempt < MAX_FITS; attempt++) {
      const room = budget - markerSize - shrink;
      if (room < 0) return null;
      const headMax = Math.floor(room * headRatio);
      const headEnd = headAt(headMax);
      const tailStart = Math.max(headEnd, tailAt(room - headMax));
      const head = text.slice(0, headEnd);
      const tail = text.slice(tailStart);
      const removed = m.additive
        ? total - m.size(head) - m.size(tail)
        : m.size(text.slice(headEnd, tailStart));
      const marker = snipMarker(removed, unit, options.note);
      if (m.additive && m.size(marker) > markerSize) return null;
      const out = head + marker + tail;
      const size = m.additive ? m.size(head) + m.size(marker) + m.size(tail) : m.sizeUpTo(out, budget);
      if (size <= budget) return { text: out, snipped: true, removed, headEnd, tailStart };
      shrink += size - budget;
    }
    return null;
  };

  // First assume the widest marker N could need (nothing measures more than 3 units per UTF-16
  // unit), which always fits; then, if the real marker came out narrower, give the room it left
  // back to the content.
  // In tokens the middle is counted whole for N, so it is counted once: the token or two the
  // wider marker held back is not worth a second pass over the input.
  const widest = m.size(snipMarker(3 * text.length, unit, options.note));
  const first = fitAround(widest);
  if (!first) return plainCut();
  if (!m.additive) return first;
  const used = m.size(snipMarker(first.removed, unit, options.note));
  return (used < widest && fitAround(used)) || first;
}

/**
 * Cuts `text` to at most `budget` units in memory: head + marker + tail, where the marker is
 * `\n[...snipped N UNIT...]\n` (or `\n[...snipped N UNIT. NOTE]\n`) and N is exactly what was
 * removed. At or under budget the text comes back unchanged; a budget too small for the marker
 * gets a plain cut of the head. Cuts never split a UTF-8 sequence or a surrogate pair.
 * Deterministic: same input and options, same output.
 *
 * @example
 * snip('a'.repeat(100), { budget: 40 });
 * // 'aaaaaaa\n[...snipped 87 bytes...]\naaaaaa' (exactly 40 bytes)
 * snip(log, { budget: 2000, unit: 'tokens', note: 'full log in build.log' });
 */
export function snip(text: string, options: SnipOptions): string {
  return snipDetailed(text, options).text;
}
