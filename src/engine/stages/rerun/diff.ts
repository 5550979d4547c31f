import { lineKind } from '../../../signals/index.js';
import { RERUN_SAME, rerunSameLines } from '../../../text/index.js';
import { alignLines } from './line-align.js';

// An unchanged stretch shorter than this is shown as itself: its marker would cost about as much.
const MIN_STRETCH = 3;
// The last lines are shown as they are, changed or not: a run's summary is there.
const LAST_LINES = 5;

/** A rerun's output as what changed since the earlier run: its lines, and how many are the same. */
export interface RerunDiff {
  /** The body: changed lines as they are, each unchanged stretch one marker line. */
  body: string;
  /** Lines of the new output found unchanged (in stretches of MIN_STRETCH or more). */
  same: number;
  lines: number;
}

/**
 * The new output of a command as what changed since its earlier run: the lines that differ as
 * they are, every unchanged stretch (three lines or more) as one line naming its lines here and
 * in the earlier run. Lines that matter (errors, failures, warnings, ...: the signal table) and
 * the last five are shown even when unchanged: the earlier run may be out of sight (superseded),
 * and a failure still there must not be. Undefined when a line of the output itself looks like
 * a stretch's line: the diff could not be read back exactly.
 *
 * @example
 * rerunDiff('a\nb\nc\nd', 'a\nb\nc\nd\nFAIL x')?.body; // '[lines 1-4 as lines 1-4 of the earlier run]\nFAIL x'
 */
export function rerunDiff(earlier: string, now: string): RerunDiff | undefined {
  const oldLines = earlier.split('\n');
  const newLines = now.split('\n');
  if (newLines.some((line) => RERUN_SAME.test(line))) return undefined;
  const shown = (i: number) =>
    i >= newLines.length - LAST_LINES || lineKind(newLines[i] as string) !== undefined;
  const out: string[] = [];
  let same = 0;
  // An unchanged run [from, to) of the new lines, starting at `oldFrom` in the earlier ones.
  const unchanged = (from: number, to: number, oldFrom: number) => {
    if (to - from < MIN_STRETCH) return void out.push(...newLines.slice(from, to));
    out.push(rerunSameLines(from + 1, to, oldFrom + 1, oldFrom + to - from));
    same += to - from;
  };
  for (const s of alignLines(oldLines, newLines)) {
    if (s.kind === 'new') {
      out.push(...newLines.slice(s.from, s.to));
      continue;
    }
    let start = s.from;
    for (let i = s.from; i < s.to; i++) {
      if (!shown(i)) continue;
      unchanged(start, i, s.oldFrom + start - s.from);
      out.push(newLines[i] as string);
      start = i + 1;
    }
    unchanged(start, s.to, s.oldFrom + start - s.from);
  }
  return { body: out.join('\n'), same, lines: newLines.length };
}

/**
 * The output a rerun diff stands for, read back from it and the earlier output: what a model
 * (or a person) would rebuild.
 *
 * @example
 * readRerunDiff('[lines 1-4 as lines 1-4 of the earlier run]\nFAIL x', 'a\nb\nc\nd'); // 'a\nb\nc\nd\nFAIL x'
 */
export function readRerunDiff(body: string, earlier: string): string {
  const oldLines = earlier.split('\n');
  const out: string[] = [];
  for (const line of body.split('\n')) {
    const m = RERUN_SAME.exec(line);
    if (m) out.push(...oldLines.slice(Number(m[3]) - 1, Number(m[4])));
    else out.push(line);
  }
  return out.join('\n');
}
