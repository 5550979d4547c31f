import { shapeOf } from '../signals/index.js';
import { codePointFloor, lineGapMarker } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import type { KeptRanges } from './kept-ranges.js';
import type { LineIndex } from './line-index.js';

/** What the markers name: the recall id, the file when there is one; and the tokenizer. */
type MarkerOptions = { id: string; path?: string | undefined; tokenizer: Tokenizer };

/**
 * A line window as the model sees it: the kept lines, and a marker for each run left out (the
 * first with the recall id), which says what the run is like when its lines are alike.
 */

// An omitted run of at least this many lines is described by the shape most of the lines at
// its two ends share (this many at each), when that many of them do, by an example cut short.
const MOSTLY_MIN_LINES = 40;
const MOSTLY_SAMPLE = 16;
const MOSTLY_SHARE = 0.75;
const MOSTLY_CHARS = 80;

/**
 * What most lines of a long omitted run look like, when one shape (numbers, ids and hashes
 * masked) holds most of the lines at both its ends: an example of it, cut short. A run of
 * lines no rule names, folded into "N lines mostly like ...".
 */
function mostlyLike(index: LineIndex, from: number, to: number): string | undefined {
  if (to - from + 1 < MOSTLY_MIN_LINES) return undefined;
  const shapes = new Map<string, { n: number; example: string }>();
  const note = (_: number, text: string) => {
    const shape = shapeOf(text);
    const seen = shapes.get(shape);
    if (seen) seen.n++;
    else shapes.set(shape, { n: 1, example: text });
    return true;
  };
  index.walk(from, 1, from + MOSTLY_SAMPLE - 1, note);
  index.walk(to, -1, to - MOSTLY_SAMPLE + 1, note);
  const best = [...shapes.values()].sort((a, b) => b.n - a.n)[0];
  if (!best || best.n < MOSTLY_SAMPLE * 2 * MOSTLY_SHARE || best.example.trim() === '') return undefined;
  // No marker tag of the output's own goes into spillway's marker (a forged id recalls nothing).
  const example = best.example.trim().replace(/<<|>>/g, '');
  return example.length > MOSTLY_CHARS
    ? `${example.slice(0, codePointFloor(example, MOSTLY_CHARS))}…`
    : example;
}

/**
 * Tokens of the first gap marker (with the recall id) and of any other, at their widest.
 *
 * @example
 * gapMarkerTokens(6000, options); // { first: 27, other: 12 }
 */
export function gapMarkerTokens(total: number, options: MarkerOptions): { first: number; other: number } {
  const { tokenizer } = options;
  const wide = Math.max(total, 10);
  return {
    first: tokenizer.count(
      `${lineGapMarker(wide - 1, wide, total, { id: options.id, path: options.path, like: true })}\n`,
    ),
    other: tokenizer.count(`${lineGapMarker(wide - 1, wide, total)}\n`),
  };
}

/**
 * The kept lines in order, each run between them one gap marker.
 *
 * @example
 * assemble(index, kept, rendered, { lines, total, folds }, options);
 */
export function assemble(
  index: LineIndex,
  kept: KeptRanges,
  rendered: ReadonlyMap<number, { text: string }>,
  { lines, total, folds }: { lines: number; total: number; folds: readonly [number, number][] },
  options: MarkerOptions,
): string {
  const parts: string[] = [];
  let next = 0;
  let marked = false;
  const gap = (from: number, to: number) => {
    // Only the empty piece after a final newline: keep it, it is not a line.
    if (from >= total) return void parts.push('');
    const last = Math.min(to + 1, total);
    const like = folds.some(([a, b]) => from >= a && to <= b);
    const mostly = like ? undefined : mostlyLike(index, from, last - 1);
    const shape = { like, ...(mostly ? { mostly } : {}) };
    parts.push(
      marked
        ? lineGapMarker(from + 1, last, total, shape)
        : lineGapMarker(from + 1, last, total, { id: options.id, path: options.path, ...shape }),
    );
    marked = true;
  };
  for (const [a, b] of kept.ranges) {
    if (a > next) gap(next, a - 1);
    for (let line = a; line <= b; line++) parts.push(rendered.get(line)?.text ?? index.text(line));
    next = b + 1;
  }
  if (next < lines) gap(next, lines - 1);
  return parts.join('\n');
}
