import { shapeOf } from '../signals/index.js';
import type { KeptRanges } from './kept-ranges.js';
import type { LineIndex } from './line-index.js';

// A run of at least this many lines shaped like the two before it is folded into one marker.
const MIN_FOLD = 3;

/**
 * A run of lines shaped like the two kept before it (from `line`, walking `step` as far as
 * `last`, where the other side has grown to): where it ends, or undefined when there is no run
 * worth folding. A run ends only where the shape changes, so a run of a million lines is one
 * marker, and the sides never walk the same line: the walks are linear in the lines together.
 */
function runFrom(
  index: LineIndex,
  kept: Pick<KeptRanges, 'has'>,
  line: number,
  step: 1 | -1,
  last: number,
): number | undefined {
  const before = line - step;
  const twoBefore = line - 2 * step;
  if (!kept.has(before) || !kept.has(twoBefore)) return undefined;
  const shape = shapeOf(index.text(before));
  if (shapeOf(index.text(twoBefore)) !== shape) return undefined;
  const end = index.walk(line, step, last, (at, text) => !kept.has(at) && shapeOf(text) === shape);
  return Math.abs(end - line) + 1 >= MIN_FOLD ? end : undefined;
}

/** Where the ends grow from (a CI log's failed step and its exit line), and lines they pass over. */
export interface GrowthEnds {
  start: number;
  end: number;
  skip: (line: number) => boolean;
}

/**
 * Grows head and tail in the headLines:tailLines ratio, by tokens (a tail of long prose lines
 * must not take the budget from the head line by line), until neither fits another line. A run
 * of lines shaped like the two before it is skipped at first, so the budget goes to lines that
 * say something new; what budget is left then goes into the runs, a line at a time each, and
 * what stays of a run is one marker ("N more like the line above"). Returns the runs.
 */
export function growEnds(
  tryAdd: (line: number, partial?: boolean) => boolean,
  kept: KeptRanges,
  index: LineIndex,
  headLines: number,
  tailLines: number,
  tokensOf: (line: number) => number,
  ends: GrowthEnds = { start: 0, end: index.count - 1, skip: () => false },
): [number, number][] {
  const lines = ends.end + 1;
  const runs: { from: number; to: number; lo: number; hi: number }[] = [];
  let head = ends.start;
  let tail = ends.end;
  // A chore (a CI runner's set-up, an echoed script) is passed over as if it were kept: its
  // lines stay in the gap's marker.
  const taken: Pick<KeptRanges, 'has'> = { has: (line) => kept.has(line) || ends.skip(line) };
  let headOpen = headLines > 0;
  let tailOpen = tailLines > 0;
  // The lines each end already has (its frame) count towards its share.
  let grownHead = 0;
  let grownTail = 0;
  for (let line = head; line < lines && taken.has(line); line++) grownHead += tokensOf(line);
  for (let line = tail; line >= head && taken.has(line); line--) grownTail += tokensOf(line);
  while ((headOpen || tailOpen) && head <= tail) {
    // Grow the side that is behind its share of the headLines:tailLines ratio.
    const growHead = headOpen && (!tailOpen || grownHead * tailLines <= grownTail * headLines);
    if (growHead) {
      while (head < lines && taken.has(head)) head++;
      const run = head <= tail ? runFrom(index, taken, head, 1, tail) : undefined;
      if (run !== undefined) {
        runs.push({ from: head, to: run, lo: head, hi: run });
        head = run + 1;
      } else if (head >= lines || !tryAdd(head)) {
        // The last line of a side may be cut to what room is left.
        if (head < lines) tryAdd(head, true);
        headOpen = false;
      } else grownHead += tokensOf(head);
    } else {
      while (tail >= 0 && taken.has(tail)) tail--;
      const run = tail >= head ? runFrom(index, taken, tail, -1, head) : undefined;
      if (run !== undefined) {
        runs.push({ from: run, to: tail, lo: run, hi: tail });
        tail = run - 1;
      } else if (tail < ends.start || !tryAdd(tail)) {
        if (tail >= ends.start) tryAdd(tail, true);
        tailOpen = false;
      } else grownTail += tokensOf(tail);
    }
  }
  // Left-over budget goes into the runs, round by round, into each from both its ends (what
  // stays omitted is the middle of the run).
  for (let open = runs.length; open > 0; ) {
    open = 0;
    for (const run of runs) {
      if (run.lo <= run.hi && tryAdd(run.lo)) {
        run.lo++;
        open++;
      }
      if (run.lo <= run.hi && tryAdd(run.hi)) {
        run.hi--;
        open++;
      }
    }
  }
  return runs.map((r) => [r.from, r.to]);
}
