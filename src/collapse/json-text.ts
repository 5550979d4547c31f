/**
 * A long string inside JSON collapsed as the text it is: a build log in `stdout`, a page in a
 * search result's `content`. Its lines get the line collapse (the ends and the lines that
 * matter, each run left out a marker that counts it and names the recall id); a text of few,
 * long lines (a web page's paragraphs) is collapsed by sentences, so the sentence that matters
 * in the middle of a paragraph is kept. What comes back is measured as the JSON string it
 * becomes (escapes included), never over the tokens it is given.
 */

import { LINE_WEIGHT } from '../signals/index.js';
import { stringCutMark } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { signalLines } from './important.js';
import { selectLines } from './lines.js';
import { DEFAULT_WINDOW_LINES } from './options.js';
import { sentenceSpans } from './sentences.js';

// A string this long is collapsed as text whatever its lines; a shorter one (over the ends'
// 400 characters) when it has at least three lines.
const TEXT_CHARS = 2000;
const ENDS_CHARS = 400;
// Lines longer than this on average make a text of paragraphs: collapsed by sentences.
const PARAGRAPH_CHARS = 800;
// Tries at an inner budget before a collapse is given up (each shrinks it by what was over).
const FIT_TRIES = 4;
// A string with a line that matters weighs this many times its size's share of a budget.
const SIGNAL_WEIGHT = 2;
// Rounds of sharing out a budget: the first, then growing into what it left or shrinking by
// what it was over. Filled this far, no more rounds.
const FILL_ROUNDS = 3;
const FULL_ENOUGH = 0.92;
// Each text's first share, before the rest goes by weight: a marker and a few lines.
const FLOOR_TOKENS = 150;
// Tokens kept back from the first round: counts of parts and of their whole differ at the joins.
const SLACK_TOKENS = 4;

/**
 * Whether a JSON string is collapsed as text: over 2,000 characters, or over 400 in three lines
 * or more. Shorter strings keep their ends (`json-tree.ts`).
 *
 * @example
 * isTextString('x'.repeat(450)); // false
 * isTextString(buildLog); // true
 */
export function isTextString(value: string): boolean {
  if (value.length <= ENDS_CHARS) return false;
  if (value.length >= TEXT_CHARS) return true;
  const first = value.indexOf('\n');
  return first >= 0 && value.indexOf('\n', first + 1) >= 0;
}

/** The tokens `value` costs as the inside of a JSON string (its escapes), counted up to `limit`. */
function escapedTokens(value: string, tokenizer: Tokenizer, limit: number): number {
  return tokenizer.countUpTo(JSON.stringify(value).slice(1, -1), limit);
}

/**
 * How many lines of a text matter (rule-named errors, failures, summaries): what a string's
 * share of a budget is weighed by, beside its size.
 *
 * @example
 * signalCount('ok\nerror: x\nok'); // 1
 */
export function signalCount(value: string): number {
  return signalLines(value, { rarity: false }).found.length;
}

/**
 * `value` collapsed as text so that, escaped as a JSON string, it takes at most `budget`:
 * whole when it fits; else by lines (or by sentences, for a text of long lines). Undefined when
 * nothing useful fits.
 *
 * @example
 * collapseTextString(buildLog, 1500, { tokenizer, id })?.text; // the ends and the error lines, markers between
 */
export function collapseTextString(
  value: string,
  budget: number,
  o: { tokenizer: Tokenizer; id: string },
): { text: string; whole: boolean } | undefined {
  if (escapedTokens(value, o.tokenizer, budget) <= budget) return { text: value, whole: true };
  const lines = value.split('\n', Math.ceil(value.length / PARAGRAPH_CHARS) + 1).length;
  const paragraphs = lines <= value.length / PARAGRAPH_CHARS;
  let inner = budget;
  for (let t = 0; t < FIT_TRIES && inner > 0; t++) {
    const lines = paragraphs
      ? undefined
      : selectLines(value, {
          budget: inner,
          headLines: DEFAULT_WINDOW_LINES,
          tailLines: DEFAULT_WINDOW_LINES,
          tokenizer: o.tokenizer,
          id: o.id,
        });
    const text = paragraphs ? bySentences(value, inner, o.tokenizer) : lines?.text;
    if (text === undefined) return paragraphs ? undefined : collapseTextByPieces(value, inner, o);
    const cost = escapedTokens(text, o.tokenizer, budget * 2);
    if (cost <= budget) return { text, whole: false };
    // What escaping adds is taken off what the lines may take: a budget a little smaller would
    // choose the same lines again.
    const over = cost - budget;
    inner = Math.min(Math.floor((inner * budget) / cost), (lines?.tokens ?? inner) - over) - 1;
  }
  return undefined;
}

// Fewer than three lines: the sentence window, as for paragraphs.
function collapseTextByPieces(value: string, budget: number, o: { tokenizer: Tokenizer }) {
  const text = bySentences(value, budget, o.tokenizer);
  if (text === undefined || escapedTokens(text, o.tokenizer, budget) > budget) return undefined;
  return { text, whole: false };
}

/**
 * A text of long lines by its sentences: the first and the last, the sentences that matter
 * (rule-named) with the one before each, then the head and tail grow; each run left out is a
 * mark counting its characters. Undefined when not even the ends fit.
 */
function bySentences(value: string, budget: number, tokenizer: Tokenizer): string | undefined {
  const units = sentenceSpans(value);
  const piece = (i: number) => value.slice(...(units[i] as [number, number]));
  // One unit a line, so the rules read each sentence as a line of its own.
  const { found } = signalLines(units.map((_, i) => piece(i).replace(/\s+/g, ' ')).join('\n'), {
    rarity: false,
  });
  const kept = new Set<number>();
  const cost = (i: number) => escapedTokens(piece(i), tokenizer, budget + 1);
  // A mark for each run, at its widest: a budget of the marks' worst case keeps the fit exact.
  const markCost = escapedTokens(stringCutMark(value.length), tokenizer, budget);
  let spent = 0;
  const add = (i: number) => {
    if (i < 0 || i >= units.length || kept.has(i)) return true;
    const c = cost(i) + markCost;
    if (spent + c > budget) return false;
    kept.add(i);
    spent += c;
    return true;
  };
  if (!add(0) || !add(units.length - 1)) return undefined;
  // Most weighty first (errors before warnings), each with the sentence before it.
  const ranked = [...found].sort((a, b) => LINE_WEIGHT[b.kind] - LINE_WEIGHT[a.kind] || a.line - b.line);
  for (const { line } of ranked) if (add(line)) add(line - 1);
  for (let head = 1, tail = units.length - 2, turn = 0; head <= tail && turn < units.length; turn++) {
    const grew = turn % 2 === 0 ? add(head++) : add(tail--);
    if (!grew) break;
  }
  let out = '';
  let omitted = 0;
  for (let i = 0; i < units.length; i++) {
    if (kept.has(i)) {
      if (omitted > 0) out += stringCutMark(omitted);
      omitted = 0;
      out += piece(i);
    } else omitted += piece(i).length;
  }
  return omitted > 0 ? out + stringCutMark(omitted) : out;
}

/**
 * A budget shared out among strings: each first gets what it needs up to `floor` (room for a
 * marker and a few lines, so no text is left a bare marker while another takes thousands of
 * tokens), then the rest by weight (water-filling): a string that needs less than its share gets
 * what it needs (it is shown whole), and what it leaves is shared among the others.
 *
 * @example
 * shareOut(1000, [1, 1, 2], [100, 5000, 5000]); // [100, 300, 600]
 * shareOut(1000, [1, 9], [400, 5000], 150); // [220, 780]: 150 each, then 1:9
 */
export function shareOut(
  room: number,
  weights: readonly number[],
  needs: readonly number[],
  floor = 0,
): number[] {
  const base = Math.min(floor, room / Math.max(1, needs.length));
  const out = needs.map((need) => Math.floor(Math.min(need, base)));
  let left = room - out.reduce((sum, n) => sum + n, 0);
  let open = needs.flatMap((need, i) => ((out[i] as number) < need ? [i] : []));
  while (open.length > 0) {
    const total = open.reduce((sum, i) => sum + (weights[i] as number), 0);
    const shareOf = (i: number) => (left * (weights[i] as number)) / total;
    const met = open.filter((i) => (needs[i] as number) - (out[i] as number) <= shareOf(i));
    if (met.length === 0) {
      for (const i of open) out[i] = (out[i] as number) + Math.floor(shareOf(i));
      break;
    }
    for (const i of met) {
      left -= (needs[i] as number) - (out[i] as number);
      out[i] = needs[i] as number;
    }
    open = open.filter((i) => !met.includes(i));
  }
  return out;
}

/**
 * Texts held in strings of a JSON value, collapsed to share what the budget leaves beside the
 * JSON around them: `frame` puts the texts in their places (and says how many were cut, for
 * the header), and the whole is counted. The share of each is by its size (square root) and
 * doubled when a line in it matters; a text needing less than its share is shown whole. Then
 * grown into what the first round left, or shrunk by what it was over. Undefined when even the
 * frame does not fit.
 *
 * @example
 * fillTexts([stdout, stderr], { budget: 2000, tokenizer, id, frame: (texts, cut) => header(cut) + body(texts) });
 */
export function fillTexts(
  values: readonly string[],
  o: { budget: number; tokenizer: Tokenizer; id: string; frame: (texts: string[], cut: number) => string },
): { text: string; calls: number } | undefined {
  let calls = 0;
  const tokenizer: Tokenizer = {
    name: o.tokenizer.name,
    count: (s) => {
      calls++;
      return o.tokenizer.count(s);
    },
    countUpTo: (s, limit) => {
      calls++;
      return o.tokenizer.countUpTo(s, limit);
    },
  };
  const bare = tokenizer.countUpTo(
    o.frame(
      values.map(() => ''),
      values.length,
    ),
    o.budget,
  );
  let room = o.budget - bare - SLACK_TOKENS;
  const weights = values.map((v) => Math.sqrt(v.length) * (signalCount(v) > 0 ? SIGNAL_WEIGHT : 1));
  const needs = values.map((v) => escapedTokens(v, tokenizer, o.budget + 1));
  let best: string | undefined;
  for (let round = 0; round < FILL_ROUNDS && room > 0; round++) {
    const shares = shareOut(room, weights, needs, FLOOR_TOKENS);
    let cut = 0;
    const texts = values.map((v, i) => {
      const c = collapseTextString(v, shares[i] as number, { tokenizer, id: o.id });
      if (c?.whole) return c.text;
      cut++;
      // Not even a few lines fit its share: a mark that counts it (the header names the id).
      return c?.text ?? stringCutMark(v.length);
    });
    const out = o.frame(texts, cut);
    const tokens = tokenizer.countUpTo(out, o.budget);
    if (tokens <= o.budget) {
      best = out;
      if (tokens >= o.budget * FULL_ENOUGH || cut === 0) break;
      room += Math.floor((o.budget - tokens) * 0.9);
    } else if (best !== undefined) break;
    else room -= tokens - o.budget + SLACK_TOKENS;
  }
  return best === undefined ? undefined : { text: best, calls };
}
