import { jsonCompactedHeader } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { largestFitting } from './bisect.js';
import { fillTexts, isTextString } from './json-text.js';
import { type Json, type JsonOmitted, planJson, renderJson, type Step } from './json-tree.js';

// Larger texts are not parsed here (the line and character windows handle them).
const MAX_JSON_CHARS = 4 * 1024 * 1024;
// Deeper values are left to the text windows: showing a value walks it recursively, and a
// result of nested brackets (JSON.parse takes any depth) would overflow the stack, so the
// result would go out whole.
const MAX_DEPTH = 128;
// A container of at most this many characters per token of the budget is shown whole at once
// (a record of an API answer), a larger one entry by entry.
const SMALL_CHARS_PER_TOKEN = 0.2;
// A plan stops past this many characters per token of the budget: more than JSON holds.
const PLAN_CHARS_PER_TOKEN = 16;
// Once the longest prefix of the plan that fits is found, this many later steps (those whose
// container is shown) are tried one by one: a step too large may be followed by small ones.
const FILL_TRIES = 24;
// Filled this far, later steps are not tried: what they could add is not worth their counts.
const FULL_ENOUGH = 0.95;
// JSON whose strings hold texts gives the rest of it (keys, short values) at least this share of
// the budget at first, however little of the whole it is; what it does not use goes to the texts.
const STRUCTURE_SHARE = 0.15;

/**
 * As much of a step that shows many entries at once (an object's keys) as `fits`: its first
 * entries and its last, the rest counted where they were. A large object deep in a tree is
 * opened all at once, so without this the budget it needs is left unused when it does not fit.
 * Its own later steps are not taken (they need the whole step), so what it shows stays closed.
 */
function partOf(step: Step, fits: (part: Step) => boolean): Step | undefined {
  if (step.at.length < 3) return undefined;
  const part = (n: number): Step => ({ ...step, at: [...step.at.slice(0, n - 1), step.at.at(-1) as number] });
  // At least its first entry and its last: a marker never opens a container.
  const n = largestFitting(1, step.at.length, (k) => fits(part(k)));
  return n > 1 ? part(n) : undefined;
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

/** What a compaction takes: the budget, its tokenizer, the recall id and file the header names. */
type CompactOptions = { budget: number; tokenizer: Tokenizer; id: string; path?: string | undefined };

/**
 * JSON compacted to a budget: the root's keys, both ends of the tree (the first and the last
 * entry of every level, down to the last leaf) verbatim, then as much of the rest as fits,
 * shallow and early entries first, odd items out (unlike the first in shape, or error-like)
 * early; a marker counts what is left out where it was, and a header names the recall id. A
 * long string that holds a text (a log in `stdout`, a page in `content`) is collapsed as that
 * text (json-text.ts), the budget shared among such strings by size and by the lines that
 * matter in them, and still shown as a JSON string. Undefined when the text is not JSON, needs
 * nothing left out, or not even its root fits.
 *
 * @example
 * compactJson(hugeApiAnswer, { budget: 2000, tokenizer, id })?.text;
 */
export function compactJson(text: string, o: CompactOptions): { text: string; calls: number } | undefined {
  if (!mayCompactAsJson(text)) return undefined;
  const value = parseCompactable(text);
  if (value === null || typeof value !== 'object') return undefined;
  const texts = textStringChars(value);
  const plain = () => compactTree(value, o, o.budget);
  if (texts === 0) return plain();
  return compactWithTexts(value, texts / text.length, o) ?? plain();
}

/** The characters of the strings in `value` that are collapsed as text (walked without recursion). */
function textStringChars(value: Json): number {
  let chars = 0;
  const nodes: Json[] = [value];
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    if (typeof node === 'string' && isTextString(node)) chars += node.length;
    else if (node !== null && typeof node === 'object')
      for (const child of Object.values(node)) nodes.push(child);
  }
  return chars;
}

/**
 * The tree compaction: the longest prefix of the plan that fits `budget`, then later steps
 * one by one. `text` shows a long string its own way (a placeholder, see compactWithTexts).
 */
function compactTree(
  value: Json[] | { [key: string]: Json },
  o: CompactOptions,
  budget: number,
  text?: (value: string) => Json | undefined,
): { text: string; calls: number; omitted: JsonOmitted } | undefined {
  const steps = planJson(value, {
    smallChars: budget * SMALL_CHARS_PER_TOKEN,
    maxChars: budget * PLAN_CHARS_PER_TOKEN,
  });
  let calls = 0;
  let tokens = 0;
  let omittedBest: JsonOmitted | undefined;
  const attempt = (taken: readonly Step[]) => {
    const omitted: JsonOmitted = { items: 0, keys: 0, strings: 0, deep: 0 };
    const body = JSON.stringify(renderJson(value, taken, omitted, text));
    const out = `${jsonCompactedHeader(omitted, o.id, o.path)}\n${body}`;
    calls++;
    if (omitted.items + omitted.keys + omitted.deep + omitted.strings + (omitted.texts ?? 0) === 0)
      return undefined;
    const count = o.tokenizer.countUpTo(out, budget);
    if (count > budget) return undefined;
    tokens = count;
    omittedBest = omitted;
    return out;
  };
  let best = attempt(steps.slice(0, 1));
  if (!best) return undefined;
  let bestOmitted = omittedBest as JsonOmitted;
  const keep = (out: string) => {
    best = out;
    bestOmitted = omittedBest as JsonOmitted;
  };
  // Bisection finds larger fits only after smaller ones: the last output that fit is the longest.
  const taken = steps.slice(
    0,
    largestFitting(1, steps.length + 1, (n) => {
      const out = attempt(steps.slice(0, n));
      if (out) keep(out);
      return out !== undefined;
    }),
  );
  const has = new Set(taken);
  let tries = 0;
  for (const step of steps.slice(taken.length)) {
    if (step.after && !has.has(step.after)) continue;
    if (tries++ >= FILL_TRIES || tokens >= budget * FULL_ENOUGH) break;
    let out = attempt([...taken, step]);
    const fitted = out
      ? step
      : partOf(step, (part) => {
          // Bisection finds larger fits only after smaller ones, as above.
          const fit = attempt([...taken, part]);
          if (fit) out = fit;
          return fit !== undefined;
        });
    if (!fitted || !out) continue;
    keep(out);
    taken.push(fitted);
    has.add(fitted);
  }
  return { text: best, calls, omitted: bestOmitted };
}

/**
 * JSON whose long strings hold texts: the tree compacted first with each such string a
 * placeholder, within the share of the budget the rest of the JSON is of the whole (at least
 * STRUCTURE_SHARE); then the budget left is shared among the strings shown (fillTexts) and each
 * placeholder replaced by its string collapsed as text, escaped. Undefined when that does not fit.
 */
function compactWithTexts(
  value: Json[] | { [key: string]: Json },
  textShare: number,
  o: CompactOptions,
): { text: string; calls: number } | undefined {
  const values: string[] = [];
  const index = new Map<string, number>();
  // A NUL and the recall id: no string of the input serializes to it by chance.
  const placeholder = (i: number) => `\u0000sw${o.id}:${i}\u0000`;
  const asText = (s: string) => {
    if (!isTextString(s)) return undefined;
    let i = index.get(s);
    if (i === undefined) {
      i = values.push(s) - 1;
      index.set(s, i);
    }
    return placeholder(i);
  };
  const share = Math.max(STRUCTURE_SHARE, 1 - textShare);
  const tree =
    compactTree(value, o, Math.floor(o.budget * share), asText) ?? compactTree(value, o, o.budget, asText);
  if (!tree) return undefined;
  const body = tree.text.slice(tree.text.indexOf('\n') + 1);
  const serialized = values.map((_, i) => JSON.stringify(placeholder(i)).slice(1, -1));
  const shown = values.flatMap((v, i) =>
    body.includes(serialized[i] as string) ? [{ value: v, at: i }] : [],
  );
  const filled = fillTexts(
    shown.map((s) => s.value),
    {
      ...o,
      frame: (texts, cut) => {
        let out = body;
        shown.forEach((s, k) => {
          out = out.replaceAll(serialized[s.at] as string, JSON.stringify(texts[k]).slice(1, -1));
        });
        const fields = cut > 0 ? pointersOf(value, new Set(shown.map((s) => s.value))) : [];
        return `${jsonCompactedHeader({ ...tree.omitted, texts: cut }, o.id, o.path, fields)}\n${out}`;
      },
    },
  );
  return filled && { text: filled.text, calls: tree.calls + filled.calls };
}

// The strings a header names by their JSON pointers: at most this many, this deep.
const NAMED_FIELDS = 3;
const NAMED_DEPTH = 64;

/**
 * The JSON pointers (RFC 6901) of the first places `strings` are found in `value`, in document
 * order, at most NAMED_FIELDS: how a recall asks for the lines of a string (`/stdout`).
 */
function pointersOf(value: Json, strings: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (node: Json, at: string, depth: number): void => {
    if (out.length >= NAMED_FIELDS || depth > NAMED_DEPTH) return;
    if (typeof node === 'string') {
      if (strings.has(node) && !seen.has(node)) {
        seen.add(node);
        out.push(at);
      }
    } else if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node[i] as Json, `${at}/${i}`, depth + 1);
    } else if (node !== null && typeof node === 'object')
      for (const [key, item] of Object.entries(node))
        visit(item, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, depth + 1);
  };
  visit(value, '', 0);
  return out;
}
