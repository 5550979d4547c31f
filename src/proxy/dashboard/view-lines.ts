import { LINE_WEIGHT, lineSignal } from '../../signals/index.js';
import { hasMarker } from '../../text/index.js';

/** What the dashboard marks in a decision's view: its marker lines, and the kept line it opens at. */
export interface ViewLines {
  /** Indexes of the lines spillway wrote (markers and placeholders), highlighted. */
  markers: number[];
  /**
   * Index of the first line of the most important kind a signal rule names (an error before
   * an earlier warning), or undefined when none does: the line the side-by-side view scrolls to.
   */
  kept?: number;
}

// lineGapMarker's and collapseCharMarker's forms when they name no recall id (a later gap of
// the same output, or an output whose original could not be stashed: see withoutRecall).
const GAP = /^\.\.\. \((?:lines? \d+(?:-\d+)?(?: of \d+)?|\d+ characters) omitted\b/;

/** A line spillway wrote: a gap, or anything carrying a marker tag. */
function isMarkerLine(line: string): boolean {
  return GAP.test(line) || hasMarker(line);
}

/**
 * Reads a decision's view (at most a few thousand characters, see request-figures.ts) line by
 * line: which lines are spillway's, and which line the collapse kept for a signal, so a person
 * opening it sees the kept error first. A marker line is never the kept one, even when it
 * quotes an error (`mostly like: error: ...`).
 *
 * @example
 * viewLines('make: step 1\n... (lines 2-900 of 990 omitted; full output: spillway_expand <<sw:Ab3>>) ...\nsrc/a.c:3:1: error: x');
 * // { markers: [1], kept: 2 }
 */
export function viewLines(view: string): ViewLines {
  const markers: number[] = [];
  let kept: number | undefined;
  let weight = 0;
  view.split('\n').forEach((line, i) => {
    if (isMarkerLine(line)) {
      markers.push(i);
      return;
    }
    const kind = lineSignal(line)?.kind;
    if (kind && LINE_WEIGHT[kind] > weight) {
      kept = i;
      weight = LINE_WEIGHT[kind];
    }
  });
  return kept === undefined ? { markers } : { markers, kept };
}
