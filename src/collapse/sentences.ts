/**
 * An over-long line of prose (a fetched page as plain text, a paragraph on one line) cut by its
 * sentences: the ones that matter (naming what the call asked for, an error, a number beside
 * those) are kept whole, in their order, and every run left out is a mark counting its
 * characters. A line with no such sentence is left to the plain cut (its start and end).
 */

import { lineKind } from '../signals/index.js';
import {
  codePointFloor,
  codePointLength,
  collapseCharMarker,
  lineCutMark,
  listingCutMark,
} from '../text/index.js';
import { MAX_TOKEN_BYTES, type Tokenizer } from '../text/tokenizers/index.js';
import { largestFitting } from './bisect.js';
import { identifyingEnd } from './listing.js';

// Pieces looked at in one line: past these the rest is one piece (bounded time on any input).
const MAX_SENTENCES = 4000;
// A piece is at most this long: a sentence longer is taken in pieces of it.
const SENTENCE_CHARS = 300;

/** One sentence of a line: where it starts and ends, and how much it matters. */
interface Sentence {
  start: number;
  end: number;
  score: number;
}

/**
 * The sentences (and lines) of `value` from `from` on, as [start, end) offsets, each with the
 * space after it and none longer than `most` characters (a longer one is taken in pieces).
 *
 * @example
 * sentenceSpans('One. Two! Three?'); // [[0, 5], [5, 10], [10, 16]]
 */
export function sentenceSpans(value: string, from = 0, most = SENTENCE_CHARS): [number, number][] {
  const out: [number, number][] = [];
  const ends = /(?:[.!?;:。！？](?=\s)|[。！？]|\n)\s*/g;
  ends.lastIndex = from;
  let start = from;
  const push = (end: number) => {
    for (let at = start; at < end; at += most) out.push([at, Math.min(end, at + most)]);
    start = end;
  };
  for (let m = ends.exec(value); m; m = ends.exec(value)) push(m.index + m[0].length);
  push(value.length);
  return out;
}

// Prose has sentence ends: a blob, a run of code or a table on one line is cut as it was.
const PROSE_END = /[.!?](?=\s+["'“‘([]?[A-Z0-9])|[。！？]/g;

/** Whether `line` (from `from`) ends at least two sentences. */
function isProse(line: string, from: number): boolean {
  PROSE_END.lastIndex = from;
  return PROSE_END.test(line) && PROSE_END.test(line);
}

/** How much a sentence matters: the call's terms it names, a fault it reports, a number beside them. */
function scoreOf(sentence: string, terms: readonly string[]): number {
  const lower = sentence.toLowerCase();
  let hits = 0;
  for (const term of terms) if (lower.includes(term)) hits++;
  const kind = lineKind(sentence);
  const fault = kind === 'error' || kind === 'exception' || kind === 'failure' ? 2 : 0;
  // A number is what a question about a limit, a version or a price asks for.
  const number = hits > 0 && /\d/.test(sentence) ? 1 : 0;
  return 3 * hits + fault + number;
}

/**
 * `line` cut to about `limit` characters by its sentences: its start as the plain cut keeps it
 * (the first `keep` characters, an item's identifying part, then about half the room, in whole
 * sentences where they fit: a page's title, a hit's path), then instead of its end the sentences
 * after it that matter most and fit, in their order; each run left out is `mark(chars)`, and
 * the marks count towards the limit. Undefined when the line is not over the limit, is no prose
 * (fewer than two sentence ends), or no sentence after its start matters (the plain cut serves).
 *
 * @example
 * cutProseLine(page, 400, ['rate', 'limit'], (n) => ` …(+${n} chars)`);
 * // 'Rate limits for the REST API. Learn about … …(+880 chars)The primary rate limit for … …(+2120 chars)'
 */
export function cutProseLine(
  line: string,
  limit: number,
  terms: readonly string[],
  mark: (chars: number) => string,
  keep = 0,
): string | undefined {
  if (line.length <= limit || !isProse(line, keep)) return undefined;
  const half = keep + Math.floor(Math.max(0, limit - keep) / 2);
  let head = keep;
  for (const [, end] of sentenceSpans(line.slice(0, half + 1), keep)) if (end <= half) head = end;
  if (head === keep) head = codePointFloor(line, half);
  const spans = sentenceSpans(line, head);
  // Past MAX_SENTENCES the rest is one piece, never kept: bounded time on a line of any length.
  if (spans.length > MAX_SENTENCES)
    spans.splice(MAX_SENTENCES - 1, spans.length, [
      (spans[MAX_SENTENCES - 1] as [number, number])[0],
      line.length,
    ]);
  const sentences: Sentence[] = spans.map(([start, end], i) => ({
    start,
    end,
    score: i < MAX_SENTENCES - 1 ? scoreOf(line.slice(start, end), terms) : 0,
  }));
  const chosen = new Set<Sentence>();
  // A mark's length, as a run of the whole line would need.
  const markChars = mark(line.length).length;
  let room = limit - head;
  const byScore = sentences.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.start - b.start);
  for (const s of byScore) {
    const cost = s.end - s.start + markChars;
    if (cost > room) continue;
    chosen.add(s);
    room -= cost;
  }
  if (chosen.size === 0) return undefined;
  let out = line.slice(0, head);
  let at = head;
  for (const s of sentences) {
    if (!chosen.has(s)) continue;
    if (s.start > at) out += mark(codePointLength(line.slice(at, s.start)));
    out += line.slice(s.start, s.end);
    at = s.end;
  }
  if (at < line.length) out += mark(codePointLength(line.slice(at)));
  return out;
}

// A line is cut by its sentences from this many characters: a fetched page's paragraph, not a
// search hit's snippet or a log line (those keep their start, or their identifying part).
export const PROSE_LINE_CHARS = 800;

/**
 * The sentence cut (see cutProseLine) of a line of at least PROSE_LINE_CHARS: a listing's item
 * keeps its identifying part first and marks its cuts briefly; another line marks them as a
 * line cut. Undefined where the plain cut serves.
 *
 * @example
 * proseCut(page, 2000, ['rate', 'limit'], false) ?? plainCut(page, 2000);
 */
export function proseCut(
  line: string,
  limit: number,
  terms: readonly string[],
  listing: boolean,
): string | undefined {
  if (line.length < PROSE_LINE_CHARS) return undefined;
  return listing
    ? cutProseLine(line, limit, terms, listingCutMark, identifyingEnd(line))
    : cutProseLine(line, limit, terms, lineCutMark);
}

/**
 * A text of one or two lines (a page fetched as one paragraph) fitted to `budget` by its
 * sentences: the most characters whose sentence cut fits, each cut a marker that names the
 * recall id. Undefined when it has more lines, is shorter than PROSE_LINE_CHARS, or no sentence
 * matters (the character window serves).
 *
 * @example
 * sentenceWindow(page, { budget: 500, tokenizer, id, query: ['rate', 'limit'] })?.text;
 */
export function sentenceWindow(
  text: string,
  o: {
    budget: number;
    tokenizer: Tokenizer;
    id: string;
    path?: string | undefined;
    query?: readonly string[];
  },
): { text: string; tokens: number; calls: number } | undefined {
  if (text.length < PROSE_LINE_CHARS || o.budget <= 0) return undefined;
  const first = text.indexOf('\n');
  if (first >= 0 && text.indexOf('\n', first + 1) >= 0) return undefined;
  const mark = (chars: number) => collapseCharMarker(chars, o.id, o.path);
  const terms = o.query ?? [];
  let calls = 0;
  const cutAt = (limit: number) => cutProseLine(text, limit, terms, mark);
  const tokensOf = (limit: number) => {
    const cut = cutAt(limit);
    // Too few characters for any sentence that matters: nothing to count, and more may fit.
    if (cut === undefined) return 0;
    calls++;
    return o.tokenizer.countUpTo(cut, o.budget);
  };
  // No token is shorter than a character: a cut of more characters than MAX_TOKEN_BYTES a token
  // of budget never fits, so the bisection's range does not grow with the text.
  const most = Math.min(text.length - 1, o.budget * MAX_TOKEN_BYTES + 1);
  const limit = largestFitting(0, most + 1, (n) => tokensOf(n) <= o.budget);
  const cut = limit > 0 ? cutAt(limit) : undefined;
  if (cut === undefined) return undefined;
  calls++;
  return { text: cut, tokens: o.tokenizer.count(cut), calls };
}
