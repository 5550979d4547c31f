import { lineKind } from '../signals/index.js';

/** Lines longer than this count as visible when their first this many characters are. */
const SHOWN_PREFIX = 300;
/** At most this many needles are taken from one text (the first ones, then the last lines). */
const MAX_NEEDLES = 5_000;

/**
 * The lines of a tool result an agent acts on: every line that matters by the rules of
 * the signal table (errors, failures, exceptions, exit statuses, summaries, diagnostics,
 * warnings, frames, diff hunks), and the last five non-empty lines (how it ended). Each line
 * once, in order.
 *
 * @example
 * needlesOf('compiling\nsrc/a.ts:3:1 - error TS2322: nope\ndone'); // ['src/a.ts:3:1 - error TS2322: nope', 'compiling', 'done']
 */
export function needlesOf(text: string): string[] {
  const lines = text.split('\n');
  const needles = new Set<string>();
  for (const line of lines) {
    if (needles.size >= MAX_NEEDLES) break;
    if (line.trim() !== '' && lineKind(line)) needles.add(line);
  }
  const last: string[] = [];
  for (let i = lines.length - 1; i >= 0 && last.length < 5; i--) {
    const line = lines[i] as string;
    if (line.trim() !== '') last.push(line);
  }
  for (const line of last.reverse()) needles.add(line);
  return [...needles];
}

/**
 * How many of the needles are still visible in `after`: the whole line, or for a long line its
 * first 300 characters.
 *
 * @example
 * needlesKept(['error: boom', 'done'], '... (lines 1-9 omitted) ...\nerror: boom'); // 1
 */
export function needlesKept(needles: readonly string[], after: string): number {
  let kept = 0;
  for (const needle of needles) if (after.includes(needle.slice(0, SHOWN_PREFIX))) kept++;
  return kept;
}
