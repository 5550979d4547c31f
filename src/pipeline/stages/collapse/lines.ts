import { type ImportantLine, importantLines, LINE_WEIGHT } from '../../../text/line-importance.js';
import { lineGapMarker } from '../../../text/markers.js';
import { codePointCeil, codePointFloor, codePointLength } from '../../../text/measure.js';
import type { Tokenizer } from '../../../text/tokenizers/tokenizer.js';
import { KeptRanges } from './kept-ranges.js';
import { LineIndex } from './line-index.js';

/** What the line selection needs to know. */
export interface LineSelectionOptions {
  maxTokens: number;
  /** The ratio head and tail grow in, and the most lines each frame starts with. */
  headLines: number;
  tailLines: number;
  tokenizer: Tokenizer;
  /** The recall id the first gap marker names, and the file path when there is one. */
  id: string;
  path?: string | undefined;
}

/** A chosen set of lines, rendered. */
export interface LineSelection {
  text: string;
  /** Lines kept, lines in all, and the important lines kept. */
  kept: number;
  lines: number;
  important: number;
  /** Tokens of `text`, counted whole. */
  tokens: number;
  tokenizerCalls: number;
}

// Lines kept at first from each end, before anything else is chosen.
const HEAD_FRAME = 3;
const TAIL_FRAME = 5;
// Lines beside an important line that come with it (before, after).
const CONTEXT_BEFORE = 1;
const CONTEXT_AFTER = 1;
// An important line whose shape (digits and hex masked) was already kept this many times waits
// until every other important line had its turn: a thousand identical warnings are not news.
const SAME_SHAPE_FIRST = 2;
// The most of the budget the lines that matter (with their context) may take.
const IMPORTANT_SHARE = 0.6;
// Important lines in a row that do not fit before the search stops.
const MAX_MISSES = 32;

/** A line over this many characters is kept by its start and end only. */
function longLineLimit(maxTokens: number): number {
  return Math.max(400, maxTokens);
}

function cutLongLine(line: string, limit: number): string {
  if (line.length <= limit) return line;
  const headEnd = codePointFloor(line, Math.floor(limit * 0.6));
  const tailStart = codePointCeil(line, line.length - Math.floor(limit * 0.3));
  const omitted = codePointLength(line.slice(headEnd, tailStart));
  return `${line.slice(0, headEnd)} … (${omitted} characters of this line omitted) … ${line.slice(tailStart)}`;
}

function shapeOf(line: string): string {
  return line.slice(0, 200).replace(/0x[0-9a-f]+|[0-9a-f]{7,}|\d+/gi, '#');
}

/**
 * Chooses the lines a budget keeps: a few lines from each end, then the lines that matter
 * (errors, failures, exceptions, exit statuses, summaries, diagnostics, warnings, frames, diff
 * hunks) with a line of context each, then the head and tail grow (in the headLines:tailLines
 * ratio) until the budget is full. Every run of omitted lines becomes one marker that names
 * its line range; the first names the recall id. Never over `maxTokens` by an exact count of
 * the output. Undefined when the text has too few lines for this to beat a character window.
 *
 * @example
 * selectLines(log, { maxTokens: 2000, headLines: 20, tailLines: 20, tokenizer, id })?.text;
 */
export function selectLines(text: string, options: LineSelectionOptions): LineSelection | undefined {
  const { maxTokens, tokenizer } = options;
  const index = new LineIndex(text);
  const lines = index.count;
  if (lines < 3 || options.headLines + options.tailLines === 0) return undefined;
  let calls = 0;
  const limit = longLineLimit(maxTokens);
  const rendered = new Map<number, { text: string; tokens: number }>();
  const render = (line: number) => {
    let r = rendered.get(line);
    if (!r) {
      const t = cutLongLine(index.text(line), limit);
      calls++;
      r = { text: t, tokens: tokenizer.count(`${t}\n`) };
      rendered.set(line, r);
    }
    return r;
  };
  // A text that ends with a newline has one line fewer than its pieces.
  const total = text.endsWith('\n') ? lines - 1 : lines;
  const markerTokens = gapMarkerTokens(total, options);
  calls += 2;
  const kept = new KeptRanges();
  const order: number[] = [];
  let spent = 0;
  const cost = (gaps: number) => markerTokens.first + Math.max(0, gaps - 1) * markerTokens.other;
  const tryAdd = (line: number): boolean => {
    if (line < 0 || line >= lines) return false;
    if (kept.has(line)) return true;
    const { tokens } = render(line);
    if (spent + tokens + cost(kept.gaps(lines, line)) > maxTokens) return false;
    kept.add(line);
    order.push(line);
    spent += tokens;
    return true;
  };

  // 1. A frame from each end.
  for (let i = 0; i < Math.min(HEAD_FRAME, options.headLines); i++) tryAdd(i);
  for (let i = 0; i < Math.min(TAIL_FRAME, options.tailLines); i++) tryAdd(lines - 1 - i);
  // 2. The lines that matter, most important first, each with a little context.
  // They take at most a share of the budget, so the head and tail still say what ran and how
  // it ended; a run of lines that do not fit ends the search.
  let important = 0;
  let misses = 0;
  const importantShare = maxTokens * IMPORTANT_SHARE;
  for (const found of rankImportant(text, index, lines)) {
    if (spent >= importantShare || misses >= MAX_MISSES) break;
    if (!tryAdd(found.line)) {
      misses++;
      continue;
    }
    misses = 0;
    important++;
    for (let k = 1; k <= CONTEXT_BEFORE; k++) tryAdd(found.line - k);
    for (let k = 1; k <= CONTEXT_AFTER; k++) tryAdd(found.line + k);
  }
  // 3. Head and tail grow, in their ratio, until neither side fits another line.
  growEnds(tryAdd, kept, lines, options.headLines, options.tailLines);

  // The sum of per-line counts is close to the count of the whole; the whole decides.
  for (let round = 0; ; round++) {
    const out = assemble(index, kept, rendered, { lines, total }, options);
    calls++;
    const tokens = tokenizer.count(out);
    if (tokens <= maxTokens)
      return { text: out, kept: order.length, lines: total, important, tokens, tokenizerCalls: calls };
    if (round >= 8 || order.length === 0) return undefined;
    // Drop the lines chosen last until the excess is covered, then count again.
    let excess = tokens - maxTokens;
    while (excess > 0 && order.length > 0) {
      const line = order.pop() as number;
      kept.remove(line);
      excess -= (rendered.get(line) as { tokens: number }).tokens;
    }
  }
}

/** The important lines of the middle, in the order they get room. */
function rankImportant(text: string, index: LineIndex, lines: number): ImportantLine[] {
  const found = importantLines(text, undefined, lines);
  for (const f of found) {
    index.know(f.line, f.start);
    if (f.end < text.length) index.know(f.line + 1, f.end + 1);
  }
  const seen = new Map<string, number>();
  const first: ImportantLine[] = [];
  const later: ImportantLine[] = [];
  // Deterministic: weight first, then position; repeats of one shape go to the back.
  const ranked = [...found].sort((a, b) => LINE_WEIGHT[b.kind] - LINE_WEIGHT[a.kind] || a.line - b.line);
  for (const f of ranked) {
    const shape = `${f.kind}:${shapeOf(text.slice(f.start, Math.min(f.end, f.start + 200)))}`;
    const n = (seen.get(shape) ?? 0) + 1;
    seen.set(shape, n);
    (n <= SAME_SHAPE_FIRST ? first : later).push(f);
  }
  return [...first, ...later];
}

function growEnds(
  tryAdd: (line: number) => boolean,
  kept: KeptRanges,
  lines: number,
  headLines: number,
  tailLines: number,
): void {
  let head = 0;
  let tail = lines - 1;
  let headOpen = headLines > 0;
  let tailOpen = tailLines > 0;
  let grownHead = 0;
  let grownTail = 0;
  while (headOpen || tailOpen) {
    // Grow the side that is behind its share of the headLines:tailLines ratio.
    const growHead = headOpen && (!tailOpen || grownHead * tailLines <= grownTail * headLines);
    if (growHead) {
      while (head < lines && kept.has(head)) head++;
      if (head >= lines || !tryAdd(head)) headOpen = false;
      else grownHead++;
    } else {
      while (tail >= 0 && kept.has(tail)) tail--;
      if (tail < 0 || !tryAdd(tail)) tailOpen = false;
      else grownTail++;
    }
    if (head > tail) break;
  }
}

function gapMarkerTokens(total: number, options: LineSelectionOptions): { first: number; other: number } {
  const { tokenizer } = options;
  const wide = Math.max(total, 10);
  return {
    first: tokenizer.count(`${lineGapMarker(wide - 1, wide, total, options.id, options.path)}\n`),
    other: tokenizer.count(`${lineGapMarker(wide - 1, wide, total)}\n`),
  };
}

function assemble(
  index: LineIndex,
  kept: KeptRanges,
  rendered: ReadonlyMap<number, { text: string }>,
  { lines, total }: { lines: number; total: number },
  options: LineSelectionOptions,
): string {
  const parts: string[] = [];
  let next = 0;
  let marked = false;
  const gap = (from: number, to: number) => {
    // Only the empty piece after a final newline: keep it, it is not a line.
    if (from >= total) return void parts.push('');
    const last = Math.min(to + 1, total);
    parts.push(
      marked
        ? lineGapMarker(from + 1, last, total)
        : lineGapMarker(from + 1, last, total, options.id, options.path),
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
