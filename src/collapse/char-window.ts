import {
  codePointCeil,
  codePointFloor,
  codePointLength,
  collapseCharMarker,
  MIN_BUDGET,
} from '../text/index.js';
import { MAX_TOKEN_BYTES, type Tokenizer } from '../text/tokenizers/index.js';
import { largestFitting } from './bisect.js';

/**
 * When the budget leaves fewer than {@link MIN_CONTENT} characters beside the marker, the
 * character window is this many characters instead, so even `budget: 0` leaves a cue about
 * what to expand, unless the budget is at least the smallest one a user may give
 * (MIN_BUDGET.tokens): that is honoured. Any larger budget is honoured exactly.
 */
export const CHAR_FLOOR = 200;
export const MIN_CONTENT = 64;

/**
 * The character window: head and tail in `ratio`, around a marker, fitted exactly to
 * `budget` by counting whole windows (each a few KB, never the input). Secant steps on
 * "tokens grow about linearly with characters" land within a few percent in 2-4 counts;
 * bisection closes the gap. The file path is named only when the marker with it still leaves
 * the floor's worth of content within budget. Each count stops at the budget, so the fit reads
 * about the same characters whatever the input's length.
 */
export function fitCharWindow(
  text: string,
  ratio: number,
  budget: number,
  id: string,
  paths: (string | undefined)[],
  tokenizer: Tokenizer,
): { build: (id: string) => string; calls: number; tokens: number } {
  let calls = 0;
  let totalChars = -1;
  const totalCharsOf = () => {
    if (totalChars < 0) totalChars = codePointLength(text);
    return totalChars;
  };
  let path = paths[paths.length - 1];
  if (paths.length > 1) {
    const withPath = paths[0];
    path = undefined;
    const probe = Math.min(CHAR_FLOOR, text.length - 1);
    const headEnd = codePointFloor(text, Math.round(probe * ratio));
    const sample =
      text.slice(0, headEnd) +
      collapseCharMarker(totalCharsOf(), id, withPath) +
      text.slice(codePointCeil(text, text.length - (probe - headEnd)));
    calls++;
    if (tokenizer.countUpTo(sample, budget) <= budget) path = withPath;
  }
  const charWindow = (c: number) => {
    const headEnd = codePointFloor(text, Math.round(c * ratio));
    const tailStart = Math.max(headEnd, codePointCeil(text, text.length - (c - Math.round(c * ratio))));
    const head = text.slice(0, headEnd);
    const tail = text.slice(tailStart);
    const omitted = totalCharsOf() - codePointLength(head) - codePointLength(tail);
    return (id: string) => head + collapseCharMarker(omitted, id, path) + tail;
  };
  const counted = new Map<number, number>();
  const measure = (c: number) => {
    let t = counted.get(c);
    if (t === undefined) {
      calls++;
      // Up to the budget only: a window over it is "too big" however far over, and counting
      // one whole (a secant step can reach the whole input) would make the fit grow with it.
      t = tokenizer.countUpTo(charWindow(c)(id), budget);
      counted.set(c, t);
    }
    return t;
  };
  const most = text.length - 1;
  const markerTokens = Math.min(budget, measure(0));
  // good always fits (0 is the bare marker, accepted only through the floor below); bad never does.
  let good = 0;
  let bad = Number.POSITIVE_INFINITY;
  let c = Math.max(1, Math.min(budget * 4, most));
  for (let step = 0; step < 6 && bad - good > 1; step++) {
    const t = measure(c);
    if (t <= budget) good = Math.max(good, c);
    else bad = Math.min(bad, c);
    if (t === budget || good >= most) break;
    const perChar = Math.max(1e-9, (t - markerTokens) / c);
    let next = Math.floor((budget - markerTokens) / perChar);
    next = Math.min(next, most, bad - 1);
    if (next <= good) next = good + 1;
    if (next >= bad || next === c) break;
    c = next;
  }
  // No token is over MAX_TOKEN_BYTES bytes, nor a character under a byte: a window of more
  // characters than that many per token of budget is over it, so the bisection's range (and its
  // steps) never grows with the input.
  if (bad === Number.POSITIVE_INFINITY)
    bad = good >= most ? good : Math.min(most + 1, budget * MAX_TOKEN_BYTES + 1);
  good = largestFitting(good, bad, (mid) => measure(mid) <= budget);
  // A budget that leaves almost no room beside the marker (budget 0 or 50) would give a
  // bare marker with no cue about what to expand: then the window is the 200-character floor.
  // Not from the smallest budget a user may give up: that one is honoured (wide characters).
  if (good < MIN_CONTENT && (budget < MIN_BUDGET.tokens || measure(CHAR_FLOOR) <= budget))
    good = Math.min(CHAR_FLOOR, most);
  return { build: charWindow(good), calls, tokens: measure(good) };
}
