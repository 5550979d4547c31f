/**
 * A JSON value shown to a budget, one step at a time. A plan orders the steps that reveal the
 * value's entries — the root's first, then both ends of the tree (first and last entry of every
 * level down to a leaf), then outward, cheapest first, where an entry costs its depth plus its
 * rank in its array. Collapse shows the longest prefix of the plan that fits, so any depth at
 * any budget fills it, and the last leaf of a tree is always among the first things shown.
 */

import { stringCutMark } from '../text/index.js';

/** A parsed JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };

/**
 * One step of a plan: entries of a container shown, those small enough whole; `after` is the
 * step it needs taken first (the one that showed its container, or that opened it).
 */
export type Step = { node: Container; at: number[]; whole: Container[]; after: Step | undefined };

/**
 * What a compaction left out: array items, keys of wide objects, long strings' middles, unopened
 * values; and how many long strings were handed to `text` (collapsed as text, json-text.ts).
 */
export type JsonOmitted = { items: number; keys: number; strings: number; deep: number; texts?: number };

// Strings longer than this keep their start and end.
const LONG_STRING = 400;
// Beside its first and last items, an array shows at most this many odd ones out early.
const ODD_PER_LEVEL = 4;
// An object of more keys than this opens with its first WIDE_FIRST and its last, then grows.
const WIDE = 64;
const WIDE_FIRST = 8;
const ERROR_LIKE = /error|fail|exception|invalid|denied|refused|timeout|panic|fatal/i;
// How much of an item's string is read for an error-like word.
const ERROR_SCAN_CHARS = 64 * 1024;

function isContainer(value: Json): value is Container {
  return value !== null && typeof value === 'object';
}

function shapeOf(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (isContainer(value)) return `{${Object.keys(value).sort().join(',')}}`;
  return typeof value;
}

function isErrorLike(value: Json): boolean {
  // A text in a string (a page, a log) is read whole: what makes it odd is often in its middle.
  if (typeof value === 'string') return ERROR_LIKE.test(value.slice(0, ERROR_SCAN_CHARS));
  if (!isContainer(value)) return false;
  // Keys and short values only: a deep walk of a huge item would cost more than it tells.
  const entries = Array.isArray(value)
    ? value.slice(0, 20).map((v, i) => [String(i), v] as const)
    : Object.entries(value).slice(0, 50);
  return entries.some(
    ([k, v]) =>
      ERROR_LIKE.test(k) || (typeof v === 'string' && ERROR_LIKE.test(v.slice(0, ERROR_SCAN_CHARS))),
  );
}

/** An array's first ODD_PER_LEVEL items shaped unlike its first item or error-like, but its ends. */
function oddItems(array: Json[]): number[] {
  const odd: number[] = [];
  const first = shapeOf(array[0] as Json);
  for (let i = 1; i < array.length - 1 && odd.length < ODD_PER_LEVEL; i++) {
    const item = array[i] as Json;
    if (shapeOf(item) !== first || isErrorLike(item)) odd.push(i);
  }
  return odd;
}

/** The length of `value` as compact JSON, counted only up to `cap` (cap + 1 past it). */
function sizeUpTo(value: Json, cap: number): number {
  if (typeof value === 'string') return Math.min(value.length, LONG_STRING) + 2;
  if (!isContainer(value)) return String(value).length;
  let size = 2;
  for (const [key, child] of Object.entries(value)) {
    size += (Array.isArray(value) ? 1 : key.length + 4) + sizeUpTo(child, cap - size);
    if (size > cap) return cap + 1;
  }
  return size;
}

/** Keys of the objects a plan or a render looks at, read once. */
type Keys = Map<Container, string[]>;

function namesOf(node: { [key: string]: Json }, keys: Keys): string[] {
  const known = keys.get(node);
  if (known) return known;
  const names = Object.keys(node);
  keys.set(node, names);
  return names;
}

function lengthOf(node: Container, keys: Keys): number {
  return Array.isArray(node) ? node.length : namesOf(node, keys).length;
}

function entryOf(node: Container, i: number, keys: Keys): [string, Json] {
  if (Array.isArray(node)) return [String(i), node[i] as Json];
  const key = namesOf(node, keys)[i] as string;
  return [key, node[key] as Json];
}

// Which end of the tree a container lies on: the first entry of the first entry of … (first),
// the last of the last (last), both (the root), or neither.
type Spine = { first: boolean; last: boolean };
const OFF_SPINE: Spine = { first: false, last: false };
type Task = {
  node: Container;
  kind: 'open' | 'grow' | 'odd';
  at: number;
  spine: Spine;
  after: Step | undefined;
};

/**
 * The steps that show `root` entry by entry, in the order collapse adds them. Containers of at
 * most `smallChars` characters are shown whole when first shown; the plan stops once its steps
 * would show more than `maxChars` characters.
 *
 * @example
 * const steps = planJson({ a: [1, 2, 3, 4], b: { c: [5] } }, { smallChars: 0, maxChars: 1000 });
 * steps.map((s) => s.at); // [[0, 1], [0], [0], [0, 3], [1], [2]]
 * // the root's keys, the last path (b, then b.c), the first (both ends of a), a's middle
 */
export function planJson(root: Container, o: { smallChars: number; maxChars: number }): Step[] {
  const steps: Step[] = [];
  const keys: Keys = new Map();
  // Odd items shown early, which growth from the start then passes over.
  const oddShown = new Map<Container, Set<number>>();
  // Costs only grow, so a list per cost is a priority queue.
  const buckets: Task[][] = [];
  const push = (cost: number, task: Task) => {
    let bucket = buckets[cost];
    if (!bucket) buckets[cost] = bucket = [];
    bucket.push(task);
  };
  let chars = 0;
  const show = (cost: number, task: Task, at: number[]) => {
    const step: Step = { node: task.node, at, whole: [], after: task.after };
    const n = lengthOf(task.node, keys);
    for (const i of at) {
      const [key, child] = entryOf(task.node, i, keys);
      chars += key.length + 4;
      const size = sizeUpTo(child, isContainer(child) ? o.smallChars : LONG_STRING);
      if (!isContainer(child)) chars += size;
      else if (size <= o.smallChars) {
        step.whole.push(child);
        chars += size;
      } else {
        chars += 16;
        const open = task.kind === 'open';
        const spine = {
          first: open && task.spine.first && i === 0,
          last: open && task.spine.last && i === n - 1,
        };
        // The last path first (where a tree's odd value tends to be), then the first.
        push(spine.last ? 0 : spine.first ? 1 : cost + 1, {
          node: child,
          kind: 'open',
          at: 0,
          spine,
          after: step,
        });
      }
    }
    steps.push(step);
    return step;
  };
  push(0, { node: root, kind: 'open', at: 0, spine: { first: true, last: true }, after: undefined });
  for (let cost = 0; cost < buckets.length && chars <= o.maxChars; cost++) {
    const bucket = buckets[cost];
    for (let t = 0; bucket && t < bucket.length && chars <= o.maxChars; t++) {
      const task = bucket[t] as Task;
      if (task.kind === 'open') openTask(task, cost);
      else growTask(task, cost);
    }
  }
  return steps;

  function growTask(task: Task, cost: number) {
    const odd = oddShown.get(task.node) ?? new Set<number>();
    oddShown.set(task.node, odd);
    if (task.kind === 'odd') odd.add(task.at);
    if (task.kind === 'odd' || !odd.has(task.at)) show(cost, task, [task.at]);
    const next = task.at + 1;
    if (task.kind === 'grow' && next < lengthOf(task.node, keys) - 1) push(cost + 1, { ...task, at: next });
  }

  function openTask(task: Task, cost: number) {
    const node = task.node;
    const n = lengthOf(node, keys);
    const first = Array.isArray(node) ? 1 : n > WIDE ? WIDE_FIRST : n;
    const at = n <= first + 1 ? [...Array(n).keys()] : [...Array(first).keys(), n - 1];
    const opened = show(cost, task, at);
    if (at.length === n) return;
    if (Array.isArray(node))
      for (const i of oddItems(node))
        push(cost + 2, { node, kind: 'odd', at: i, spine: OFF_SPINE, after: opened });
    push(cost + 2, { node, kind: 'grow', at: first, spine: OFF_SPINE, after: opened });
  }
}

/**
 * Which entries of which containers the steps taken show, and which containers they show whole;
 * `text` shows a long string its own way when it takes it (gives a value).
 */
type Shown = {
  at: Map<Container, number[]>;
  whole: Set<Container>;
  keys: Keys;
  text: ((value: string) => Json | undefined) | undefined;
};

/**
 * `root` as the given steps show it: an entry not shown is counted in a marker where it was
 * (`"… 12 more items like these …"` in an array, a `"… 70 more keys …"` key in an object); a
 * container not opened is its size (`"… 3 items …"`); long strings keep their ends, or are what
 * `text` gives for them.
 *
 * @example
 * const omitted = { items: 0, keys: 0, strings: 0, deep: 0 };
 * const list = [1, 2, 3, 4];
 * renderJson(list, planJson(list, { smallChars: 0, maxChars: 1e6 }).slice(0, 1), omitted);
 * // [1, '… 2 more items like these …', 4]
 */
export function renderJson(
  root: Container,
  steps: readonly Step[],
  omitted: JsonOmitted,
  text?: (value: string) => Json | undefined,
): Json {
  const shown: Shown = { at: new Map(), whole: new Set(), keys: new Map(), text };
  for (const step of steps) {
    const at = shown.at.get(step.node) ?? [];
    shown.at.set(step.node, at);
    at.push(...step.at);
    for (const w of step.whole) shown.whole.add(w);
  }
  return render(root, shown, omitted, false);
}

function render(value: Json, shown: Shown, omitted: JsonOmitted, whole: boolean): Json {
  if (typeof value === 'string' && value.length > LONG_STRING) {
    const own = shown.text?.(value);
    if (own !== undefined) {
      omitted.texts = (omitted.texts ?? 0) + 1;
      return own;
    }
    omitted.strings++;
    return `${value.slice(0, LONG_STRING / 2)}${stringCutMark(value.length - LONG_STRING)}${value.slice(-LONG_STRING / 4)}`;
  }
  if (!isContainer(value)) return value;
  const all = whole || shown.whole.has(value);
  const at = shown.at.get(value);
  const array = Array.isArray(value);
  const n = lengthOf(value, shown.keys);
  if (!all && !at) {
    omitted.deep++;
    return `… ${n} ${array ? 'items' : 'keys'} …`;
  }
  const indices = all ? [...Array(n).keys()] : [...new Set(at)].sort((a, b) => a - b);
  const out: Json[] = [];
  // No prototype: a "__proto__" key of the value stays a key.
  const object: { [key: string]: Json } = Object.create(null);
  let next = 0;
  for (const i of indices) {
    if (i > next) gap(i - next);
    const [key, child] = entryOf(value, i, shown.keys);
    const kept = render(child, shown, omitted, all);
    if (array) out.push(kept);
    else object[key] = kept;
    next = i + 1;
  }
  if (n > next) gap(n - next);
  return array ? out : object;

  function gap(count: number) {
    if (array) {
      out.push(`… ${count} more items like these …`);
      omitted.items += count;
    } else {
      object[`… ${count} more keys …`] = null;
      omitted.keys += count;
    }
  }
}
