import { LINE_WEIGHT, lineSignal } from '../../../signals/index.js';
import { hasMarker } from '../../../text/index.js';

/** What the dashboard marks in a decision's view: its marker lines, and the kept line it opens at. */
export interface ViewLines {
  /** Indexes of the lines spillway wrote (markers and placeholders), highlighted. */
  markers: number[];
  /**
   * Index of the first line of the most important kind a signal rule names (an error before
   * an earlier warning), or undefined when none does: the line the side-by-side view scrolls to.
   */
  kept?: number;
  /**
   * The kept line's number in the original (1-based), when the view is the original's lines
   * with gaps that say which lines they stand for (a line collapse): the original opens there.
   */
  keptLine?: number;
}

// lineGapMarker's form, and collapseCharMarker's, with or without a recall id (withoutRecall
// takes it out of an output whose original could not be stashed).
const GAP = /^\.\.\. \((?:lines? (\d+)(?:-(\d+))?(?: of \d+)?|\d+ characters) omitted\b/;

/**
 * Reads a decision's view (at most a few thousand characters, see request-figures.ts) line by
 * line: which lines are spillway's, which line the collapse kept for a signal, so a person
 * opening it sees the kept error first, and where that line is in the original. A marker line
 * is never the kept one, even when it quotes an error (`mostly like: error: ...`); past a
 * marker that is not a line gap (JSON compacted, a character window, a placeholder) the
 * original's line numbers are not known.
 *
 * @example
 * viewLines('make: step 1\n... (lines 2-900 of 990 omitted; full output: spillway_expand <<sw:Ab3>>) ...\nsrc/a.c:3:1: error: x');
 * // { markers: [1], kept: 2, keptLine: 901 }
 */
export function viewLines(view: string): ViewLines {
  const markers: number[] = [];
  let kept: number | undefined;
  let keptLine = Number.NaN;
  let weight = 0;
  // The original's number of the next line shown.
  let line = 1;
  view.split('\n').forEach((text, i) => {
    const gap = GAP.exec(text);
    if (gap || hasMarker(text)) {
      markers.push(i);
      line = gap?.[1] ? Number(gap[2] ?? gap[1]) + 1 : Number.NaN;
      return;
    }
    const kind = lineSignal(text)?.kind;
    if (kind && LINE_WEIGHT[kind] > weight) {
      kept = i;
      keptLine = line;
      weight = LINE_WEIGHT[kind];
    }
    line++;
  });
  if (kept === undefined) return { markers };
  return Number.isNaN(keptLine) ? { markers, kept } : { markers, kept, keptLine };
}
