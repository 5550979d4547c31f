import {
  type ImportantLine,
  LIBRARY_FRAME,
  LINE_WEIGHT,
  passedTally,
  quietLevel,
  templateOf,
} from '../signals/index.js';
import type { LineIndex } from './line-index.js';

// An important line whose template (words with digits masked) was already kept this many times
// waits until every other important line had its turn: a thousand identical warnings are not
// news, from one host or from many.
const SAME_TEMPLATE_FIRST = 2;
// A rule's faults past this many (a type checker's 600 errors, a linter's) wait behind every
// exit line and summary: the first few and the count say as much as the rest.
const SAME_RULE_FIRST = 8;
// Frames of a stack trace ranked with the lines that matter: its top and bottom ones.
const TRACE_TOP = 3;
const TRACE_BOTTOM = 2;
// Frames of the program's own code ranked first in a trace that also runs through a runtime or
// a package (with one frame from each of its ends).
const OWN_FRAMES = 3;

/**
 * The lines that matter (as `scanLines` found them), in the order they get room: weight
 * first, then position; repeats of one template, lines logged at a quiet level and the inner
 * frames of a long stack trace go to the back. Their offsets are taught to the line index.
 *
 * @example
 * const scan = scanLines(text);
 * rankImportant(text, new LineIndex(text, scan.lines), scan.important)[0]?.kind; // 'error'
 */
export function rankImportant(
  text: string,
  index: LineIndex,
  found: readonly ImportantLine[],
  read = false,
): ImportantLine[] {
  for (const f of found) {
    index.know(f.line, f.start);
    if (f.end < text.length) index.know(f.line + 1, f.end + 1);
  }
  // Per shape: how many times it was seen, and where last (a line, or a trace).
  const seen = new Map<string, { times: number; last: number }>();
  const first: ImportantLine[] = [];
  const overflow: ImportantLine[] = [];
  const later: ImportantLine[] = [];
  const byRule = new Map<string, number>();
  const { inner, traceOf } = stackTraces(text, found);
  // Deterministic: weight first, then position; repeats of one shape and the inner frames of a
  // long stack trace go to the back.
  const ranked = [...found].sort((a, b) => LINE_WEIGHT[b.kind] - LINE_WEIGHT[a.kind] || a.line - b.line);
  // A line said again word for word (pytest prints its FAILURES block twice, with -rA) is no
  // news the second time: it waits, wherever its shape stands.
  const said = new Set<string>();
  for (const f of ranked) {
    const start = text.slice(f.start, Math.min(f.end, f.start + 200));
    const again = said.has(start);
    said.add(start);
    const shape = `${f.kind}:${templateOf(start)}`;
    // A trace repeats a shape once however many of its frames have it (Rust's frames through one
    // file differ only in their numbers): the second trace through that file is not a repeat.
    const occurrence = traceOf.get(f) ?? f.line;
    const before = seen.get(shape);
    const times = before?.last === occurrence ? before.times : (before?.times ?? 0) + 1;
    seen.set(shape, { times, last: occurrence });
    // A line logged at a quiet level (INFO … error corrected) waits too: its logger says it is
    // no fault; so does a tally of passes (a CI job's many test runs that passed).
    const quiet = (f.kind !== 'frame' && quietLevel(start)) || (f.kind === 'summary' && passedTally(start));
    const ruleTimes = f.rule && LINE_WEIGHT[f.kind] >= LINE_WEIGHT.error ? (byRule.get(f.rule) ?? 0) + 1 : 0;
    if (f.rule) byRule.set(f.rule, ruleTimes);
    if (times > SAME_TEMPLATE_FIRST || inner.has(f) || again || quiet) later.push(f);
    // A file read is no run's report: its asserts and raises are its code, not faults to count.
    else (ruleTimes > SAME_RULE_FIRST && !read ? overflow : first).push(f);
  }
  const told = (f: ImportantLine) => LINE_WEIGHT[f.kind] >= LINE_WEIGHT.summary;
  return [...first.filter(told), ...overflow, ...first.filter((f) => !told(f)), ...later];
}

/**
 * The stack traces among the lines that matter, and the frames of each that rank last. A trace
 * is frames no more than two lines apart (Python puts a line of code between them); `traceOf`
 * numbers them (negative, apart from line numbers). Its top and bottom frames are where the
 * error was raised and where it entered the program; the ones between rank last. A trace that
 * runs through library code as well as the program's is told apart by its frames' paths: there
 * both ends can be the runtime's (Rust's panic machinery on top, the test harness below) and the
 * fault is in the program's frames, so those rank first (the first few), with one frame from
 * each end.
 */
function stackTraces(
  text: string,
  found: readonly ImportantLine[],
): { inner: Set<ImportantLine>; traceOf: Map<ImportantLine, number> } {
  const inner = new Set<ImportantLine>();
  const traceOf = new Map<ImportantLine, number>();
  let trace: ImportantLine[] = [];
  let traces = 0;
  const close = () => {
    const id = -1 - traces++;
    const library = trace.map((f) => LIBRARY_FRAME.test(text.slice(f.start, Math.min(f.end, f.start + 400))));
    const mixed = library.includes(true) && library.includes(false);
    let own = 0;
    trace.forEach((f, i) => {
      traceOf.set(f, id);
      const end = mixed
        ? i === 0 || i === trace.length - 1
        : i < TRACE_TOP || i >= trace.length - TRACE_BOTTOM;
      if (end) return;
      if (mixed && !library[i] && own < OWN_FRAMES) own++;
      else inner.add(f);
    });
    trace = [];
  };
  for (const f of found) {
    if (f.kind !== 'frame') continue;
    const last = trace.at(-1);
    if (last && f.line - last.line > 2) close();
    trace.push(f);
  }
  close();
  return { inner, traceOf };
}

/**
 * The ranked lines of a file read in the order they get room: what went wrong (errors, failures,
 * exceptions, exit statuses, summaries) first, as in any output, then what the file defines and
 * what the call asked about, then the rest (a source file's asserts and raises, its warnings).
 * Any other output keeps its ranking.
 *
 * @example
 * readOrder(ranked, true)[0]?.kind; // 'error' if the read file holds one, else 'outline' or 'relevant'
 */
export function readOrder(ranked: readonly ImportantLine[], read = false): readonly ImportantLine[] {
  if (!read) return ranked;
  const wrong = (f: ImportantLine) => LINE_WEIGHT[f.kind] >= LINE_WEIGHT.summary;
  const located = (f: ImportantLine) => f.kind === 'outline' || f.kind === 'relevant';
  return [
    ...ranked.filter(wrong),
    ...ranked.filter(located),
    ...ranked.filter((f) => !wrong(f) && !located(f)),
  ];
}
