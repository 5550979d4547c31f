/** One value to write: `holder[field]` of the parsed body, as it should be now. */
export interface JsonEdit {
  holder: object;
  field: string | number;
  value: unknown;
  /** The JSON text to write, where it is not `JSON.stringify(value)` (the client's own bytes kept). */
  json?: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isEnd = (b: number | undefined) =>
  b === undefined || b === 0x2c || b === 0x7d || b === 0x5d || isSpace(b);

/** The end (after the closing quote) of the string that opens at `at`. */
function stringEnd(raw: Buffer, at: number): number {
  for (let q = raw.indexOf(QUOTE, at + 1); q >= 0; q = raw.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (raw[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/** An object member's name from its quoted bytes: decoded directly unless it holds an escape. */
function keyOf(raw: Buffer, start: number, end: number): string {
  for (let at = start + 1; at < end - 1; at++)
    if (raw[at] === BACKSLASH) return JSON.parse(raw.toString('utf8', start, end)) as string;
  return raw.toString('utf8', start + 1, end - 1);
}

/** A value's bytes: [start, end). */
interface Span {
  start: number;
  end: number;
}

/**
 * What a walk of the bytes looks for at one value: the members to go into (by name or index),
 * each with what to look for in it; or, for an array, every item's span. `found` is where the
 * value itself is. Only values on the way to what is wanted are read member by member; every
 * other value is skipped whole (a string with indexOf), so nothing is built for it.
 */
interface Wanted {
  below?: Map<string | number, Wanted>;
  items?: Span[];
  found?: Span;
}

/** Forgets what was found at and below `want`: a name given twice, whose last value JSON.parse kept. */
function forget(want: Wanted): void {
  want.found = undefined;
  if (want.items) want.items.length = 0;
  for (const below of want.below?.values() ?? []) forget(below);
}

/** Finds `want` in the value at `at` (bytes JSON.parse took); its end, or -1 if they do not scan. */
function seek(raw: Buffer, at: number, want: Wanted): number {
  const open = raw[at];
  const container = open === 0x7b || open === 0x5b;
  const end = container && (want.below || want.items) ? seekMembers(raw, at, want) : valueEnd(raw, at);
  if (end >= 0) want.found = { start: at, end };
  return end;
}

function seekMembers(raw: Buffer, at: number, want: Wanted): number {
  const object = raw[at] === 0x7b;
  const close = object ? 0x7d : 0x5d;
  let i = skipSpace(raw, at + 1);
  if (raw[i] === close) return i + 1;
  for (let index = 0; ; index++) {
    let key: string | number = index;
    if (object) {
      const nameEnd = raw[i] === QUOTE ? stringEnd(raw, i) : -1;
      if (nameEnd < 0) return -1;
      key = keyOf(raw, i, nameEnd);
      i = skipSpace(raw, nameEnd);
      if (raw[i] !== 0x3a) return -1;
      i = skipSpace(raw, i + 1);
    }
    const below = want.below?.get(key);
    if (below) forget(below);
    const end = below ? seek(raw, i, below) : valueEnd(raw, i);
    if (end < 0) return -1;
    if (!object) want.items?.push({ start: i, end });
    i = skipSpace(raw, end);
    if (raw[i] !== 0x2c) return raw[i] === close ? i + 1 : -1;
    i = skipSpace(raw, i + 1);
  }
}

/** Walks `raw` for `root`; false when the bytes do not scan as one JSON value. */
function seekAll(raw: Buffer, root: Wanted): boolean {
  const end = seek(raw, skipSpace(raw, 0), root);
  return end >= 0 && skipSpace(raw, end) === raw.length;
}

/**
 * The way from the body's root to each holder, as wanted values: the members of `parsed` to go
 * into, found by walking it once (containers only, with parent indexes kept in flat arrays).
 */
function wantedHolders(
  parsed: unknown,
  holders: ReadonlySet<object>,
): { root: Wanted; at: Map<object, Wanted> } {
  const root: Wanted = {};
  const at = new Map<object, Wanted>();
  const values: object[] = [];
  const parents: number[] = [];
  const keys: (string | number)[] = [];
  const stack: number[] = [];
  const push = (value: unknown, parent: number, key: string | number) => {
    if (typeof value !== 'object' || value === null) return;
    values.push(value);
    parents.push(parent);
    keys.push(key);
    stack.push(values.length - 1);
  };
  push(parsed, -1, 0);
  while (stack.length > 0 && at.size < holders.size) {
    const index = stack.pop() as number;
    const value = values[index] as object;
    if (holders.has(value)) at.set(value, wantedAt(root, index, parents, keys));
    if (Array.isArray(value)) for (let k = 0; k < value.length; k++) push(value[k], index, k);
    else for (const k in value) push((value as Record<string, unknown>)[k], index, k);
  }
  return { root, at };
}

/** The wanted value of the container at `index`, made along its way from the root. */
function wantedAt(root: Wanted, index: number, parents: number[], keys: (string | number)[]): Wanted {
  const way: (string | number)[] = [];
  for (let i = index; (parents[i] as number) >= 0; i = parents[i] as number)
    way.push(keys[i] as string | number);
  let want = root;
  for (let k = way.length - 1; k >= 0; k--) want = wantedBelow(want, way[k] as string | number);
  return want;
}

function wantedBelow(want: Wanted, key: string | number): Wanted {
  want.below ??= new Map();
  let below = want.below.get(key);
  if (!below) {
    below = {};
    want.below.set(key, below);
  }
  return below;
}

/**
 * The original bytes of a JSON body with only the edited values rewritten: every byte outside
 * them goes out exactly as it came in (numbers beyond 2^53, `1e400`, key order, spacing, invalid
 * UTF-8 elsewhere), which `JSON.stringify(JSON.parse(raw))` cannot promise. `parsed` must be
 * `JSON.parse(raw)`, edited only by `edits`. Undefined when an edited value cannot be found in
 * the bytes (a field the body did not have); the caller then serialises the whole body.
 *
 * @example
 * const parsed = JSON.parse(raw.toString());
 * spliceJson(raw, parsed, [{ holder: parsed.messages[2].content[0], field: 'content', value: 'short' }]);
 */
export function spliceJson(raw: Buffer, parsed: unknown, edits: readonly JsonEdit[]): Buffer | undefined {
  if (edits.length === 0) return raw;
  const { root, at } = wantedHolders(parsed, new Set(edits.map((e) => e.holder)));
  const fields = edits.map((edit) => {
    const holder = at.get(edit.holder);
    return holder && wantedBelow(holder, edit.field);
  });
  if (!seekAll(raw, root)) return undefined;
  const ranges: { start: number; end: number; text: string }[] = [];
  for (const [k, edit] of edits.entries()) {
    const found = fields[k]?.found;
    if (!found) return undefined;
    ranges.push({ start: found.start, end: found.end, text: edit.json ?? JSON.stringify(edit.value) });
  }
  ranges.sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let from = 0;
  for (const r of ranges) {
    if (r.start < from) return undefined;
    parts.push(raw.subarray(from, r.start), Buffer.from(r.text, 'utf8'));
    from = r.end;
  }
  parts.push(raw.subarray(from));
  return Buffer.concat(parts);
}

/**
 * The bytes of some values of a JSON body, as the client sent them (`parsed` is
 * `JSON.parse(raw)`): undefined for one that cannot be found, or all undefined when the body
 * does not scan.
 *
 * @example
 * const parsed = JSON.parse(raw.toString());
 * valueBytes(raw, parsed, [{ holder: parsed.a, field: 'n' }]); // [Buffer.from('9007199254740993')]
 */
export function valueBytes(
  raw: Buffer,
  parsed: unknown,
  targets: readonly { holder: object; field: string | number }[],
): (Buffer | undefined)[] {
  if (targets.length === 0) return [];
  const { root, at } = wantedHolders(parsed, new Set(targets.map((t) => t.holder)));
  const fields = targets.map((t) => {
    const holder = at.get(t.holder);
    return holder && wantedBelow(holder, t.field);
  });
  if (!seekAll(raw, root)) return targets.map(() => undefined);
  return fields.map((f) => (f?.found ? raw.subarray(f.found.start, f.found.end) : undefined));
}

/**
 * The byte ranges of the items of the top-level array `key` of a JSON body (its `messages`, its
 * `input`), in order; undefined when the body has no such array or does not scan.
 *
 * @example
 * arrayItemSpans(Buffer.from('{"messages":[{"a":1},2]}'), 'messages'); // [{ start: 13, end: 20 }, { start: 21, end: 22 }]
 */
export function arrayItemSpans(raw: Buffer, key: string): Span[] | undefined {
  const array: Wanted = { items: [] };
  const root: Wanted = { below: new Map([[key, array]]) };
  if (raw[skipSpace(raw, 0)] !== 0x7b || !seekAll(raw, root)) return undefined;
  return array.found && raw[array.found.start] === 0x5b ? array.items : undefined;
}

/** The end of the JSON value that starts at `at` in bytes JSON.parse took, or -1. */
function valueEnd(raw: Buffer, at: number): number {
  const first = raw[at];
  if (first === QUOTE) return stringEnd(raw, at);
  if (first !== 0x7b && first !== 0x5b) {
    let end = at + 1;
    while (!isEnd(raw[end])) end++;
    return end;
  }
  let depth = 0;
  for (let i = at; i < raw.length; i++) {
    const b = raw[i] as number;
    if (b === QUOTE) {
      i = stringEnd(raw, i) - 1;
      if (i < 0) return -1;
    } else if (b === 0x7b || b === 0x5b) depth++;
    else if ((b === 0x7d || b === 0x5d) && --depth === 0) return i + 1;
  }
  return -1;
}

const skipSpace = (raw: Buffer, at: number) => {
  let i = at;
  while (isSpace(raw[i] as number)) i++;
  return i;
};

/**
 * The byte ranges of the items that follow `at` in an array, where `at` is just after one of its
 * items (what a conversation's next body adds to the messages of the last), and where the array
 * closes; undefined when the bytes there are not that.
 *
 * @example
 * arrayItemSpansAfter(Buffer.from('{"m":[1,22,3]}'), 7); // { spans: [{ start: 8, end: 10 }, { start: 11, end: 12 }], close: 12 }
 */
export function arrayItemSpansAfter(raw: Buffer, at: number): { spans: Span[]; close: number } | undefined {
  const spans: Span[] = [];
  let i = skipSpace(raw, at);
  while (raw[i] === 0x2c) {
    const start = skipSpace(raw, i + 1);
    const end = valueEnd(raw, start);
    if (end < 0) return undefined;
    spans.push({ start, end });
    i = skipSpace(raw, end);
  }
  return raw[i] === 0x5d ? { spans, close: i } : undefined;
}
