import { jsonCompactedHeader } from '../../../text/markers.js';
import type { Tokenizer } from '../../../text/tokenizers/tokenizer.js';
import { largestFitting } from './bisect.js';

// Larger texts are not parsed here (the line and character windows handle them).
const MAX_JSON_CHARS = 4 * 1024 * 1024;
// Strings longer than this keep their start and end.
const LONG_STRING = 400;
// The most items an array keeps from its start (the budget decides how many, by bisection).
const MAX_KEEP = 4096;
// Beside its first and last items, an array keeps at most this many odd ones out per level.
const ODD_PER_LEVEL = 4;

/** What a compaction left out: array items, long strings' middles, values below the depth shown. */
export type JsonOmitted = { items: number; strings: number; deep: number };
const ERROR_LIKE = /error|fail|exception|invalid|denied|refused|timeout|panic|fatal/i;
// Deeper values are left to the text windows: compacting walks a value recursively, and a
// result of nested brackets (JSON.parse takes any depth) would overflow the stack, so the
// result would go out whole.
const MAX_DEPTH = 128;
// Levels are shown whole or not at all: under this budget a character window fills it better.
const DEPTH_MIN_TOKENS = 500;

/** A parsed JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function shapeOf(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (value !== null && typeof value === 'object') return `{${Object.keys(value).sort().join(',')}}`;
  return typeof value;
}

function isErrorLike(value: Json): boolean {
  if (typeof value === 'string') return ERROR_LIKE.test(value.slice(0, LONG_STRING));
  if (value === null || typeof value !== 'object') return false;
  // Keys and short values only: a deep walk of a huge item would cost more than it tells.
  const entries = Array.isArray(value)
    ? value.slice(0, 20).map((v, i) => [String(i), v] as const)
    : Object.entries(value).slice(0, 50);
  return entries.some(
    ([k, v]) => ERROR_LIKE.test(k) || (typeof v === 'string' && ERROR_LIKE.test(v.slice(0, LONG_STRING))),
  );
}

/** Items of an array an attempt has found its odd ones out in: one scan however many are tried. */
type OddCache = WeakMap<Json[], number[]>;

/**
 * Where an array's odd items out are (shaped unlike its first item, or error-like), in order,
 * not counting its first and last: every one below MAX_KEEP and the first ODD_PER_LEVEL past
 * it, which is all any `keep` can take.
 */
function oddItems(array: Json[], cache: OddCache): number[] {
  let odd = cache.get(array);
  if (odd) return odd;
  odd = [];
  const first = shapeOf(array[0] as Json);
  for (let i = 1, past = 0; i < array.length - 1 && past < ODD_PER_LEVEL; i++) {
    const item = array[i] as Json;
    if (shapeOf(item) === first && !isErrorLike(item)) continue;
    odd.push(i);
    if (i >= MAX_KEEP) past++;
  }
  cache.set(array, odd);
  return odd;
}

/**
 * A value with long arrays cut to their first `keep` items, up to ODD_PER_LEVEL odd ones out
 * after them, and their last item; a count stands where items were left out. Only the kept items
 * are visited, so each budget tried costs what it keeps, not the whole value.
 *
 * @example
 * compactValue([1, 2, 3, 4, 'error', 6, 7], 2, { items: 0, strings: 0, deep: 0 });
 * // [1, 2, '… 2 more items like these …', 'error', '… 1 more items like these …', 7]
 */
export function compactValue(
  value: Json,
  keep: number,
  omitted: JsonOmitted,
  cache: OddCache = new WeakMap(),
  depth = Number.POSITIVE_INFINITY,
): Json {
  if (typeof value === 'string' && value.length > LONG_STRING) {
    omitted.strings++;
    return `${value.slice(0, LONG_STRING / 2)}… (${value.length - LONG_STRING} characters omitted) …${value.slice(-LONG_STRING / 4)}`;
  }
  // Below the depth shown, an array or object is its size: a tree too deep for the budget keeps
  // its upper levels whole, every key of them.
  if (depth <= 0 && value !== null && typeof value === 'object') {
    omitted.deep++;
    return Array.isArray(value) ? `… ${value.length} items …` : `… ${Object.keys(value).length} keys …`;
  }
  if (Array.isArray(value)) {
    if (value.length <= keep + 2) return value.map((v) => compactValue(v, keep, omitted, cache, depth - 1));
    const out: Json[] = [];
    let next = 0;
    const take = (i: number) => {
      if (i > next) {
        out.push(`… ${i - next} more items like these …`);
        omitted.items += i - next;
      }
      out.push(compactValue(value[i] as Json, keep, omitted, cache, depth - 1));
      next = i + 1;
    };
    for (let i = 0; i < keep; i++) take(i);
    let odd = 0;
    for (const i of oddItems(value, cache)) {
      if (i < keep) continue;
      if (odd++ >= ODD_PER_LEVEL) break;
      take(i);
    }
    take(value.length - 1);
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = compactValue(v, keep, omitted, cache, depth - 1);
    return out;
  }
  return value;
}

/** Whether `text` may be an object or an array collapse compacts (at most 4 MiB; not parsed). */
function mayCompactAsJson(text: string): boolean {
  const first = text.trimStart()[0];
  return (first === '{' || first === '[') && text.length <= MAX_JSON_CHARS;
}

/** `text` parsed, when it is a value collapse compacts: not nested deeper than MAX_DEPTH. */
function parseCompactable(text: string): Json | undefined {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
  // Walked without recursion, so the check itself takes any depth; only objects and arrays are
  // held (a million numbers cost no allocation).
  const nodes: Json[] = [value];
  const depths = [1];
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const depth = depths.pop() as number;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_DEPTH) return undefined;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child === null || typeof child !== 'object') continue;
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
  return value;
}

/**
 * Whether collapse compacts `text` by its JSON structure: one object or array of at most 4 MiB
 * that parses, nested at most 128 deep (JSON Lines, or a log that starts with a bracket, does
 * not). Parses only what starts and ends like one.
 *
 * @example
 * isCompactableJson('{"items":[1,2,3]}'); // true
 * isCompactableJson('{"a":1}\n{"a":2}'); // false: two documents
 */
export function isCompactableJson(text: string): boolean {
  const last = text.trimEnd().at(-1);
  if (!mayCompactAsJson(text) || (last !== '}' && last !== ']')) return false;
  return parseCompactable(text) !== undefined;
}

/**
 * JSON compacted to a budget: every object keeps all its keys; long arrays keep their first
 * items, their last item, and the items that differ in shape or hold error-like values, with a
 * count where the rest were; long strings keep their ends. A header names the recall id. The
 * most items that fit are kept; undefined when the text is not JSON or does not fit even so.
 *
 * @example
 * compactJson(hugeApiAnswer, { maxTokens: 2000, tokenizer, id })?.text;
 */
export function compactJson(
  text: string,
  o: { maxTokens: number; tokenizer: Tokenizer; id: string; path?: string | undefined },
): { text: string; calls: number } | undefined {
  if (!mayCompactAsJson(text)) return undefined;
  const value = parseCompactable(text);
  if (value === undefined) return undefined;
  let calls = 0;
  const cache: OddCache = new WeakMap();
  const attempt = (keep: number, depth = Number.POSITIVE_INFINITY) => {
    const omitted: JsonOmitted = { items: 0, strings: 0, deep: 0 };
    const body = JSON.stringify(compactValue(value, keep, omitted, cache, depth));
    const out = `${jsonCompactedHeader(omitted, o.id, o.path)}\n${body}`;
    calls++;
    const shortened = omitted.items + omitted.deep > 0;
    return shortened && o.tokenizer.countUpTo(out, o.maxTokens) <= o.maxTokens ? out : undefined;
  };
  // The most items from each array's start that still fit. Bisection finds larger fits only
  // after smaller ones, so the last output that fit is the one for the most items.
  let best = attempt(1);
  if (!best && o.maxTokens >= DEPTH_MIN_TOKENS) {
    // Too deep for even one item of each array: the most levels that fit, each key kept.
    largestFitting(1, MAX_DEPTH + 1, (depth) => {
      const out = attempt(1, depth);
      if (out) best = out;
      return out !== undefined;
    });
    return best ? { text: best, calls } : undefined;
  }
  if (!best) return undefined;
  largestFitting(1, MAX_KEEP + 1, (keep) => {
    const out = attempt(keep);
    if (out) best = out;
    return out !== undefined;
  });
  return { text: best, calls };
}
