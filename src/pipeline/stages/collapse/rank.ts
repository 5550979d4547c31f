import { type ImportantLine, LINE_WEIGHT } from '../../../text/line-importance.js';
import type { LineIndex } from './line-index.js';
import { shapeOf } from './shape.js';

// An important line whose shape (digits and hex masked) was already kept this many times waits
// until every other important line had its turn: a thousand identical warnings are not news.
const SAME_SHAPE_FIRST = 2;
// Frames of a stack trace ranked with the lines that matter: its top and bottom ones.
const TRACE_TOP = 3;
const TRACE_BOTTOM = 2;

/**
 * The lines that matter (as `scanLines` found them), in the order they get room: weight
 * first, then position; repeats of one shape and the inner frames of a long stack trace go to
 * the back. Their offsets are taught to the line index.
 *
 * @example
 * const scan = scanLines(text);
 * rankImportant(text, new LineIndex(text, scan.lines), scan.important)[0]?.kind; // 'error'
 */
export function rankImportant(
  text: string,
  index: LineIndex,
  found: readonly ImportantLine[],
): ImportantLine[] {
  for (const f of found) {
    index.know(f.line, f.start);
    if (f.end < text.length) index.know(f.line + 1, f.end + 1);
  }
  const seen = new Map<string, number>();
  const first: ImportantLine[] = [];
  const later: ImportantLine[] = [];
  const inner = innerFrames(found);
  // Deterministic: weight first, then position; repeats of one shape and the inner frames of a
  // long stack trace go to the back.
  const ranked = [...found].sort((a, b) => LINE_WEIGHT[b.kind] - LINE_WEIGHT[a.kind] || a.line - b.line);
  for (const f of ranked) {
    const shape = `${f.kind}:${shapeOf(text.slice(f.start, Math.min(f.end, f.start + 200)))}`;
    const n = (seen.get(shape) ?? 0) + 1;
    seen.set(shape, n);
    (n <= SAME_SHAPE_FIRST && !inner.has(f) ? first : later).push(f);
  }
  return [...first, ...later];
}

/**
 * The frames in the middle of each stack trace: a trace is frames no more than two lines apart
 * (Python puts a line of code between them); its top and bottom frames are where the error was
 * raised and where it entered the program, the ones between rank last.
 */
function innerFrames(found: readonly ImportantLine[]): Set<ImportantLine> {
  const inner = new Set<ImportantLine>();
  let trace: ImportantLine[] = [];
  const close = () => {
    for (const f of trace.slice(TRACE_TOP, Math.max(TRACE_TOP, trace.length - TRACE_BOTTOM))) inner.add(f);
    trace = [];
  };
  for (const f of found) {
    if (f.kind !== 'frame') continue;
    const last = trace.at(-1);
    if (last && f.line - last.line > 2) close();
    trace.push(f);
  }
  close();
  return inner;
}
