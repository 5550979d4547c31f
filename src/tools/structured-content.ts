/**
 * Structured content (`structuredContent` of a tool result) kept in its shape while it is made to
 * fit a budget: long arrays keep their first items and their last, long strings their ends (or
 * the lines that matter), and every cut is listed so it can be marked and recalled.
 */
import { largestFitting } from '../collapse/index.js';
import { type Store, stash } from '../store/index.js';
import { codePointCeil, codePointFloor, collapseCharMarker, markerTag, valueBytes } from '../text/index.js';
import { getTokenizer } from '../text/tokenizers/index.js';

const o200k = getTokenizer('o200k');
/** Whether a value's JSON fits `budget` tokens. */
const fitsJson = (value: unknown, budget: number) => {
  const json = JSON.stringify(value);
  return json.length <= budget || o200k.countUpTo(json, budget) <= budget;
};

/** An array of the structured content cut to its first items and its last. */
export interface CutArray {
  /** Where it is, as a JSON Pointer (`/items`, `/pages/0/rows`). */
  path: string;
  total: number;
  kept: number;
}

/** What a shortening left out: the arrays cut and the number of strings shortened. */
export interface StructuredCuts {
  arrays: CutArray[];
  strings: number;
}

// The most first items an array keeps (the budget decides how many, by bisection).
const MAX_KEEP = 1024;
// Deeper than this a value is kept as it is (a stack a server's JSON cannot exhaust).
const MAX_DEPTH = 32;
// Long strings collapsed by the engine (each its own stash); past these they are cut by ends.
const MAX_COLLAPSED_STRINGS = 16;
// The least a shortened string keeps, in tokens, however many there are.
const MIN_STRING_TOKENS = 48;

const pointer = (path: string, key: string | number) =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** `value` with every array longer than `keep` + 1 cut to its first `keep` items and its last. */
function sampleArrays(value: unknown, keep: number, cuts: CutArray[], path = '', depth = 0): unknown {
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const cut = value.length > keep + 1;
    if (cut) cuts.push({ path: path || '/', total: value.length, kept: keep + 1 });
    const kept = cut ? [...value.slice(0, keep), value.at(-1)] : value;
    return kept.map((v, i) =>
      sampleArrays(v, keep, cuts, pointer(path, cut && i === keep ? value.length - 1 : i), depth + 1),
    );
  }
  // fromEntries makes own properties: a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, sampleArrays(v, keep, cuts, pointer(path, k), depth + 1)]),
  );
}

/** `value` with each string `edit` returns a new text for replaced (same shape, same keys). */
function mapStrings(value: unknown, edit: (s: string) => string | undefined, depth = 0): unknown {
  if (typeof value === 'string') return edit(value) ?? value;
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, edit, depth + 1));
  // fromEntries makes own properties: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, edit, depth + 1)]));
}

/** The strings of `value` longer than `chars`, each once. */
function longStrings(value: unknown, chars: number, into = new Set<string>(), depth = 0): Set<string> {
  if (typeof value === 'string') {
    if (value.length > chars) into.add(value);
  } else if (depth < MAX_DEPTH && value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) longStrings(v, chars, into, depth + 1);
  }
  return into;
}

/** A string cut to about `tokens` by its two ends, the marker naming where the whole is. */
function cutEnds(text: string, tokens: number, wholeId: string): string {
  const keep = tokens * 3;
  if (text.length <= keep) return text;
  const headEnd = codePointFloor(text, Math.round(keep * 0.6));
  const tailStart = codePointCeil(text, text.length - (keep - headEnd));
  return text.slice(0, headEnd) + collapseCharMarker(tailStart - headEnd, wholeId) + text.slice(tailStart);
}

export interface ShortenStructuredOptions {
  budget: number;
  /** The id the whole structured content is stashed under (named by every cut string). */
  wholeId: string;
  /** The engine's collapse of one string to `tokens` (the lines that matter kept, stashed). */
  collapse: (text: string, tokens: number) => Promise<string>;
}

/**
 * `value` made to fit `budget` tokens in its own shape: arrays cut to the most first items (and
 * the last) that fit, the long strings of what is left shortened to a share of the budget each
 * (the first few by the engine's collapse, the rest by their ends), with the list of cuts.
 * Only the items kept are ever collapsed, so a thousand-item array costs a handful of collapses.
 *
 * @example
 * const { value, cuts } = await shortenStructured(big, { budget: 1800, wholeId, collapse });
 * cuts.arrays; // [{ path: '/items', total: 1000, kept: 41 }]
 */
export async function shortenStructured(
  value: unknown,
  options: ShortenStructuredOptions,
): Promise<{ value: unknown; cuts: StructuredCuts }> {
  const { budget, wholeId } = options;
  const share = (n: number) => Math.max(MIN_STRING_TOKENS, Math.floor((budget * 0.75) / Math.max(1, n)));
  // The value at `keep` items per array, its long strings cut by their ends to their share.
  const at = (keep: number) => {
    const arrays: CutArray[] = [];
    const sampled = sampleArrays(value, keep, arrays);
    const long = longStrings(sampled, share(1) * 3);
    const tokens = share(long.size);
    const cut = mapStrings(sampled, (s) => (long.has(s) ? cutEnds(s, tokens, wholeId) : undefined));
    return { sampled, arrays, long, tokens, cut };
  };
  // At least one item and the last, however little fits.
  const best = at(largestFitting(1, MAX_KEEP + 1, (keep) => fitsJson(at(keep).cut, budget)));
  // The kept items' long strings, the first few collapsed (their errors kept, not just ends).
  const collapsed = new Map<string, string>();
  for (const s of [...best.long].slice(0, MAX_COLLAPSED_STRINGS))
    collapsed.set(s, await options.collapse(s, best.tokens));
  const finer = mapStrings(best.sampled, (s) =>
    best.long.has(s) ? (collapsed.get(s) ?? cutEnds(s, best.tokens, wholeId)) : undefined,
  );
  const cuts = { arrays: best.arrays, strings: best.long.size };
  return { value: fitsJson(finer, budget) ? finer : best.cut, cuts };
}

/**
 * The note the gateway adds beside structured content it shortened (the content itself keeps the
 * tool's schema, so the cuts are listed here): each array cut, the strings shortened, the id of
 * the whole. At most five arrays are named; the count says how many more.
 *
 * @example
 * structuredCutNote({ arrays: [{ path: '/items', total: 1000, kept: 41 }], strings: 0 }, 1800, 'Ab3');
 * // '[structured content shortened to fit 1800 tokens: /items 41 of 1000 items kept (the first 40 and the last); whole: spillway_expand <<sw:Ab3>>]'
 */
function structuredCutNote(
  cuts: { arrays: readonly { path: string; total: number; kept: number }[]; strings: number },
  budget: number,
  id: string,
): string {
  const named = cuts.arrays
    .slice(0, 5)
    .map((a) => `${a.path} ${a.kept} of ${a.total} items kept (the first ${a.kept - 1} and the last)`);
  if (cuts.arrays.length > 5) named.push(`${cuts.arrays.length - 5} more arrays cut alike`);
  if (cuts.strings > 0) named.push(`${cuts.strings} long strings shortened`);
  return `[structured content shortened to fit ${budget} tokens: ${named.join('; ')}; whole: spillway_expand ${markerTag(id)}]`;
}

/**
 * A tool result's structured content over the budget, kept in its shape (a client may check it
 * against the tool's output schema): the whole stashed (the server's own bytes, so a recall
 * gives back its numbers and spacing exactly), its arrays and long strings cut to fit, and a
 * note naming each cut and the whole's id to put beside it. Undefined when it fits, or when it
 * cannot be stashed (logged: then it goes through whole and nothing is lost). Without the line
 * it came in (a result in process), the value's JSON is stashed.
 *
 * @example
 * const out = await shortenStructuredContent(result, { raw, message }, { budget: 1800, store, collapse });
 * if (out) result = { ...result, structuredContent: out.value, content: [...result.content, { type: 'text', text: out.note }] };
 */
export async function shortenStructuredContent(
  result: Record<string, unknown>,
  line: { raw: Buffer; message: unknown } | undefined,
  o: {
    budget: number;
    store: Store;
    collapse: ShortenStructuredOptions['collapse'];
    log?: (event: Record<string, unknown>) => void;
  },
): Promise<{ value: unknown; note: string } | undefined> {
  const value = result.structuredContent;
  if (value === undefined || fitsJson(value, o.budget)) return undefined;
  let wholeId: string;
  try {
    const [bytes] = line
      ? valueBytes(line.raw, line.message, [{ holder: result, field: 'structuredContent' }])
      : [];
    wholeId = await stash(o.store, bytes ?? JSON.stringify(value));
  } catch (err) {
    o.log?.({ event: 'stash_failed', error: (err as Error).message });
    return undefined;
  }
  const { value: shortened, cuts } = await shortenStructured(value, {
    budget: o.budget,
    wholeId,
    collapse: o.collapse,
  });
  // Nothing to cut (one object of many keys): it goes as it is, with nothing to mark.
  if (cuts.arrays.length === 0 && cuts.strings === 0) return undefined;
  o.log?.({ event: 'structured_shortened', id: wholeId, arrays: cuts.arrays.length });
  return { value: shortened, note: structuredCutNote(cuts, o.budget, wholeId) };
}
