import { codePointCeil, codePointFloor, codePointLength, lineCutMark } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { largestFitting } from './bisect.js';
import { type CiEnds, ciEnds } from './ci-ends.js';
import { type GrowthEnds, growEnds } from './grow.js';
import { addImportant, headingOf, signalLines } from './important.js';
import { KeptRanges } from './kept-ranges.js';
import { LineIndex } from './line-index.js';
import { cutListingLine } from './listing.js';
import { rankImportant, readOrder } from './rank.js';
import { assemble, gapMarkerTokens } from './render.js';
import { proseCut } from './sentences.js';

/** What the line selection needs to know. */
export interface LineSelectionOptions {
  budget: number;
  /** The ratio head and tail grow in, and the most lines each frame starts with. */
  headLines: number;
  tailLines: number;
  tokenizer: Tokenizer;
  /** The recall id the first gap marker names, and the file path when there is one. */
  id: string;
  path?: string | undefined;
  /** Which signals find the lines that matter: the rule table's, rarity's (both by default). */
  signals?: { rules?: boolean; rarity?: boolean };
  /** What the call asked about (see queryTerms): lines that name it are kept too. */
  query?: readonly string[];
  /** The text is a file a read returned: its outline (definitions, headings) is kept too. */
  outline?: boolean;
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
  /**
   * Why each kept line is kept (by line index): `head`, `tail`, a rule's kind and id
   * (`error core/error-word`), `rare`, `context of N`, `file of N`, `alike run` (see explain).
   */
  reasons: ReadonlyMap<number, string>;
}

// Lines kept at first from each end, before anything else is chosen.
const HEAD_FRAME = 3;
const TAIL_FRAME = 5;
// A text of at most this many lines, this share of them longer than LISTING_LONG_CHARS, is a
// listing: its lines are cut to a share of the budget, no shorter than LISTING_LINE_CHARS and
// never inside an item's identifying part (see listingLimit and cutListingLine).
const LISTING_LINES = 400;
const LISTING_LONG_SHARE = 0.8;
const LISTING_LONG_CHARS = 160;
const LISTING_LINE_CHARS = 60;
// A listing's lines, cut, take at most this share of the budget (markers take the rest).
const LISTING_BUDGET_SHARE = 0.92;
// A partial line is worth adding only with at least this many tokens of room.
const MIN_PARTIAL_TOKENS = 24;

/** A line over this many characters is kept by its start and end only. */
function longLineLimit(budget: number): number {
  return Math.max(400, budget);
}

function cutLongLine(line: string, limit: number): string {
  if (line.length <= limit) return line;
  const headEnd = codePointFloor(line, Math.floor(limit * 0.6));
  const tailStart = codePointCeil(line, line.length - Math.floor(limit * 0.3));
  const omitted = codePointLength(line.slice(headEnd, tailStart));
  return `${line.slice(0, headEnd)}${lineCutMark(omitted)}${line.slice(tailStart)}`;
}

/**
 * Chooses the lines a budget keeps: a few lines from each end, then the lines that matter
 * (errors, failures, exceptions, exit statuses, summaries, diagnostics, warnings, frames, diff
 * hunks) with a line of context each, then the head and tail grow (in the headLines:tailLines
 * ratio) until the budget is full. Every run of omitted lines becomes one marker that names
 * its line range; the first names the recall id. Never over `budget` by an exact count of
 * the output. Undefined when the text has too few lines for this to beat a character window.
 *
 * @example
 * selectLines(log, { budget: 2000, headLines: 20, tailLines: 20, tokenizer, id })?.text;
 */
// Long: one budget, spent in order (frames, findings, growth) by closures that share its ledger.
export function selectLines(text: string, options: LineSelectionOptions): LineSelection | undefined {
  const { budget, tokenizer } = options;
  // Fewer than three lines (two line ends) is a case for a character window.
  const firstEnd = text.indexOf('\n');
  if (firstEnd < 0 || text.indexOf('\n', firstEnd + 1) < 0) return undefined;
  if (options.headLines + options.tailLines === 0) return undefined;
  // One pass finds the lines that matter and counts the lines.
  const { scan, found } = signalLines(text, options.signals, options.query, options.outline);
  const index = new LineIndex(text, scan.lines);
  const lines = index.count;
  // A CI job's log: its ends are the step that failed and its exit line, not the runner's set-up
  // and clean-up; what a chore or an echoed script says is no finding.
  const ci = ciEnds(text, lines, found, options);
  for (const [line, start] of ci.starts) index.know(line, start);
  let calls = 0;
  const limit = longLineLimit(budget);
  const rendered = new Map<number, { text: string; tokens: number; limit: number; prose?: boolean }>();
  const render = (line: number, lineLimit: number) => {
    let r = rendered.get(line);
    if (!r || r.limit !== lineLimit) {
      const listing = lineLimit < limit;
      const shown = ci.shown(index.text(line));
      // A paragraph keeps the sentences that matter (a finding), not only its start and end.
      const prose = proseCut(shown, lineLimit, options.query ?? [], listing);
      const t = prose ?? (listing ? cutListingLine : cutLongLine)(shown, lineLimit);
      calls++;
      r = { text: t, tokens: tokenizer.count(`${t}\n`), limit: lineLimit, prose: prose !== undefined };
      rendered.set(line, r);
    }
    return r;
  };
  // A text that ends with a newline has one line fewer than its pieces.
  const total = text.endsWith('\n') ? lines - 1 : lines;
  // A listing of long lines (search hits, records) shows every item's identifying part before it
  // drops any: its lines are cut to a share of the budget each, after the part that names the
  // item (title and URL, path, name); the lines that matter keep the usual limit.
  const named = new Set(found.map((f) => f.line));
  const itemLimit = listingLimit(text, total, budget, limit, tokenizer);
  const limitOf = (line: number) => (named.has(line) ? limit : itemLimit);
  const markerTokens = gapMarkerTokens(total, options);
  calls += 2;
  const kept = new KeptRanges();
  let choresToo = false;
  const order: number[] = [];
  let spent = 0;
  const cost = (gaps: number) => markerTokens.first + Math.max(0, gaps - 1) * markerTokens.other;
  const reasons = new Map<number, string>();
  const tryAdd = (line: number, partial = false, why?: string, lineLimit = limit): boolean => {
    if (line < 0 || line >= lines) return false;
    if (kept.has(line)) return true;
    // A chore or an echoed script is kept only with what room is left at the end, not even as a
    // finding's context before.
    if (!choresToo && ci.skip(line)) return false;
    const room = budget - reserve - spent - cost(kept.gaps(lines, line));
    let { tokens } = render(line, lineLimit);
    // A line too long for what is left can still give its start and end to fill the budget.
    if (tokens > room && partial && room >= MIN_PARTIAL_TOKENS) {
      const text = cutLongLine(ci.shown(index.text(line)), room * 3);
      calls++;
      tokens = tokenizer.count(`${text}\n`);
      if (tokens <= room) rendered.set(line, { text, tokens, limit: lineLimit });
    }
    if (tokens > room) return false;
    kept.add(line);
    order.push(line);
    if (why) reasons.set(line, why);
    spent += tokens;
    return true;
  };

  const ranked = ci.order(readOrder(rankImportant(text, index, ci.found, options.outline), options.outline));
  // 1. A frame from each end, leaving room for the first finding and the gap it opens: on a
  // tight budget the frames would otherwise take it all (3 + 5 lines of a build log filled 150
  // tokens and its one error was left out).
  const first = ranked[0];
  let reserve = first ? render(first.line, limit).tokens + markerTokens.other : 0;
  addFrames(ci, options, (line, why) => tryAdd(line, false, why, limitOf(line)));
  reserve = 0;
  // 2. The lines that matter, most important first, each with a little context.
  // They take at most a share of the budget, so the head and tail still say what ran and how
  // it ended.
  const important = addImportant(
    ranked,
    tryAdd,
    (line) => headingOf(index, line),
    () => spent,
    budget,
  );
  // 3. Head and tail grow, in their ratio, until neither side fits another line.
  const grow = (ends: GrowthEnds) =>
    growEnds(
      (line, partial) => tryAdd(line, partial, undefined, limitOf(line)),
      kept,
      index,
      options.headLines,
      options.tailLines,
      (line) => rendered.get(line)?.tokens ?? 0,
      ends,
    );
  // A CI log grows from its failed step's ends first, then (with what is left) from its own.
  const folds = [...grow(ci), ...(ci.why ? grow({ start: 0, end: lines - 1, skip: ci.skip }) : [])];
  // What room the lines that are no chore leave goes to the chores (a short job's set-up).
  choresToo = true;
  if (ci.starts.size > 0) folds.push(...grow({ start: 0, end: lines - 1, skip: () => false }));

  return fitWhole({ index, kept, rendered, order, folds, lines, total, options, reasons, important, calls });
}

/**
 * The kept lines assembled and counted whole (the sum of per-line counts is close to the count
 * of the whole; the whole decides): the lines chosen last are dropped until it fits.
 */
function fitWhole(s: {
  index: LineIndex;
  kept: KeptRanges;
  rendered: ReadonlyMap<number, { text: string; tokens: number; prose?: boolean }>;
  order: number[];
  folds: [number, number][];
  lines: number;
  total: number;
  options: LineSelectionOptions;
  reasons: ReadonlyMap<number, string>;
  important: number;
  calls: number;
}): LineSelection | undefined {
  const { index, kept, rendered, order, folds, lines, total, options } = s;
  const { budget, tokenizer } = options;
  let calls = s.calls;
  for (let round = 0; ; round++) {
    const out = assemble(index, kept, rendered, { lines, total, folds }, options);
    calls++;
    const tokens = tokenizer.count(out);
    if (tokens <= budget)
      return {
        text: out,
        kept: order.length,
        lines: total,
        important: s.important + order.filter((line) => rendered.get(line)?.prose).length,
        tokens,
        tokenizerCalls: calls,
        reasons: grownReasons(order, s.reasons, folds, lines),
      };
    if (round >= 8 || order.length === 0) return undefined;
    // Drop the lines chosen last until the excess is covered, then count again.
    let excess = tokens - budget;
    while (excess > 0 && order.length > 0) {
      const line = order.pop() as number;
      kept.remove(line);
      excess -= (rendered.get(line) as { tokens: number }).tokens;
    }
  }
}

/**
 * The length lines of a listing are cut to: when the text is a listing (at most LISTING_LINES
 * lines, most of them longer than LISTING_LONG_CHARS, too long to show whole), the longest cut
 * (no shorter than LISTING_LINE_CHARS) at which every line fits a share of the budget, each
 * keeping its identifying part; else the usual limit.
 */
function listingLimit(
  text: string,
  total: number,
  budget: number,
  limit: number,
  tokenizer: Tokenizer,
): number {
  if (total > LISTING_LINES || text.length < budget * 4) return limit;
  const lines = text.split('\n', total);
  const long = lines.filter((line) => line.length > LISTING_LONG_CHARS).length;
  if (long < total * LISTING_LONG_SHARE) return limit;
  const room = budget * LISTING_BUDGET_SHARE;
  const fits = (share: number) =>
    tokenizer.countUpTo(lines.map((line) => cutListingLine(line, share)).join('\n'), room) <= room;
  return largestFitting(LISTING_LINE_CHARS, limit, fits);
}

/**
 * Every kept line's reason: the ones the growth of the ends kept are `head` or `tail` (by the
 * half they are in), or `alike run` inside a run of lines of one shape.
 */
function grownReasons(
  order: readonly number[],
  reasons: ReadonlyMap<number, string>,
  folds: readonly [number, number][],
  lines: number,
): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of order) {
    const inRun = folds.some(([from, to]) => line >= from && line <= to);
    out.set(line, reasons.get(line) ?? (inRun ? 'alike run' : line < lines / 2 ? 'head' : 'tail'));
  }
  return out;
}

/** The first lines from each end (a CI log's: of the step that failed), chores passed over. */
function addFrames(
  ci: CiEnds,
  options: LineSelectionOptions,
  add: (line: number, why: string) => boolean,
): void {
  // A failed step's head is its command (kept first): its first lines of output wait for growth.
  const head = ci.why ? 1 : HEAD_FRAME;
  for (let i = ci.start, n = 0; i <= ci.end && n < Math.min(head, options.headLines); i++)
    if (!ci.skip(i) && add(i, ci.why ? `head of ${ci.why}` : 'head')) n++;
  for (let i = ci.end, n = 0; i >= ci.start && n < Math.min(TAIL_FRAME, options.tailLines); i--)
    if (!ci.skip(i) && add(i, ci.why ? `tail of ${ci.why}` : 'tail')) n++;
}
