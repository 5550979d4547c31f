/**
 * Finding the lines that matter in a text of any size, in one pass: the signal table's
 * pre-filters find where a rule might match, and only those lines are classified.
 */

import { lineSignal } from './classify.js';
import type { SignalKind } from './kinds.js';
import { CANDIDATE, MIDDLE, MIDDLE_WORDS } from './table.js';

// After a line that matters, lines are classified one by one until this many in a row are not.
const READ_ON = 4;

// A match may run this far past the end of the window it starts in.
const MATCH_OVERRUN = 64;

/**
 * How much of a text is searched with the full pre-filter: all of it up to this many
 * characters; past that the first quarter and the last three quarters of this window around the
 * middle's ends (where a failure's cause and its final report usually are). The middle between
 * them is searched for errors, failures and exceptions only. The bound keeps collapse of a 15 MB
 * output within a few hashes of it.
 */
export const IMPORTANCE_SCAN_CHARS = 1024 * 1024;

/** One line of a text that matters: where it is and what it is. */
export interface ImportantLine {
  /** Index of the line, from 0. */
  line: number;
  start: number;
  end: number;
  kind: SignalKind;
  /** The signal rule that named it (absent for a rare line). */
  rule?: string;
}

/** What one pass over a text finds: the lines that matter, and how many lines it has. */
export interface LineScan {
  important: ImportantLine[];
  lines: number;
}

/**
 * The lines of `text` that matter, in order, and its number of lines, in one pass. Only
 * candidate lines are classified: those a cheap pre-filter finds in the whole text up to
 * {@link IMPORTANCE_SCAN_CHARS}, and past that in its first and last stretches, with the
 * middle searched for errors, failures and exceptions, every line of it (each line is
 * classified at most once: the time is linear in the text). At most `limit` lines are returned,
 * so memory stays bounded on any input.
 *
 * @example
 * scanLines('ok\nerror: boom\nok'); // { important: [{ line: 1, kind: 'error', ... }], lines: 3 }
 */
export function scanLines(text: string, limit = 20_000): LineScan {
  const out: ImportantLine[] = [];
  const long = text.length > IMPORTANCE_SCAN_CHARS;
  const headEnd = long ? IMPORTANCE_SCAN_CHARS / 4 : text.length;
  const tailStart = long ? text.length - (IMPORTANCE_SCAN_CHARS * 3) / 4 : text.length;
  // The line `counted` starts, and its number: every line is counted once, in order.
  let counted = 0;
  let line = 0;
  const lines = () => line + newlines(text, counted, text.length) + 1;

  // Classifies the line at `start` and, if it matters, reads on while lines keep mattering (a
  // frame under an error need not carry a middle mark); false at the limit. A candidate that is
  // ordinary reads nothing on: most are (a word in prose or code), and every rule's lines carry
  // a mark the search finds anyway.
  const classify = (at: number): boolean => {
    let start = text.lastIndexOf('\n', at - 1) + 1;
    line += newlines(text, counted, start);
    for (let ordinary = READ_ON - 1; ordinary < READ_ON && start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const rule = lineSignal(text.slice(start, Math.min(end, start + 512)));
      if (rule && out.at(-1)?.line !== line) {
        out.push({ line, start, end, kind: rule.kind, rule: rule.id });
        if (out.length >= limit) {
          counted = start;
          return false;
        }
        ordinary = 0;
      } else ordinary++;
      if (end >= text.length) {
        start = text.length;
        break;
      }
      start = end + 1;
      line++;
    }
    counted = start;
    return true;
  };

  // Searches [from, to) with `finder` and for `words`, classifying every candidate (at most one
  // a line: the time is linear in the text, whatever it says). The regex runs on a view that ends
  // just past `to`, so a window with no candidate is not searched on to the end of the text.
  const search = (finder: RegExp, from: number, to: number, words: readonly string[] = []) => {
    const view = text.slice(0, Math.min(text.length, to + MATCH_OVERRUN));
    // The search resumes where the next line starts: no mark begins with a line end (a test
    // holds the table to it), so none is passed over.
    const next = new Finder(finder, view, words, text);
    for (let at = next.after(Math.max(from, counted)); at < to; at = next.after(counted)) {
      if (!classify(at)) return false;
      if (counted >= text.length) return false;
    }
    return true;
  };

  // The one regex objects, not copies per call: V8 compiles a copy again once garbage
  // collections have dropped its compilation cache. The scan is synchronous, so no other call
  // can move their lastIndex meanwhile.
  if (search(CANDIDATE, 0, headEnd) && search(MIDDLE, headEnd, tailStart, MIDDLE_WORDS))
    search(CANDIDATE, tailStart, text.length);
  return { important: out, lines: lines() };
}

function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * The next place a regex or one of some words is found, at or after a position that only moves
 * forward: each is searched again only once the position has passed what it last found, so the
 * whole search is one pass per regex and per word.
 */
class Finder {
  private match = -1;
  private readonly found: number[];

  constructor(
    private readonly regex: RegExp,
    private readonly view: string,
    private readonly words: readonly string[],
    private readonly text: string,
  ) {
    this.found = words.map(() => -1);
  }

  /** The first place at or after `from` (Infinity when there is none). */
  after(from: number): number {
    if (this.match !== Number.POSITIVE_INFINITY && this.match < from) {
      this.regex.lastIndex = from;
      this.match = this.regex.exec(this.view)?.index ?? Number.POSITIVE_INFINITY;
    }
    let first = this.match;
    this.words.forEach((word, i) => {
      let at = this.found[i] as number;
      if (at !== Number.POSITIVE_INFINITY && at < from) {
        at = this.text.indexOf(word, from);
        if (at < 0) at = Number.POSITIVE_INFINITY;
        this.found[i] = at;
      }
      if (at < first) first = at;
    });
    return first;
  }
}
