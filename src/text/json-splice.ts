/** Where one JSON value sits in the bytes: [start, end), and its members when it has any. */
interface Located {
  start: number;
  end: number;
  members?: Map<string | number, Located>;
}

/** One value to write: `holder[field]` of the parsed body, as it should be now. */
export interface JsonEdit {
  holder: object;
  field: string | number;
  value: unknown;
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

type Frame = { node: Located; array: boolean; key: string | number | undefined; next: number };

/** An object member's name from its quoted bytes: decoded directly unless it holds an escape. */
function keyOf(raw: Buffer, start: number, end: number): string {
  for (let at = start + 1; at < end - 1; at++)
    if (raw[at] === BACKSLASH) return JSON.parse(raw.toString('utf8', start, end)) as string;
  return raw.toString('utf8', start + 1, end - 1);
}

/**
 * Every value's byte range in a JSON text already known to be valid (JSON.parse took it). An
 * explicit stack, so nesting depth costs no recursion; strings are skipped with indexOf, so a
 * body of large strings costs about one pass of memchr. Undefined when the bytes do not scan.
 */
function locate(raw: Buffer): Located | undefined {
  const stack: Frame[] = [];
  let root: Located | undefined;
  let i = 0;
  const place = (node: Located) => {
    const top = stack.at(-1);
    if (!top) root = node;
    else if (top.array) top.node.members?.set(top.next++, node);
    else {
      top.node.members?.set(top.key as string, node);
      top.key = undefined;
    }
  };
  while (i < raw.length) {
    const b = raw[i] as number;
    if (isSpace(b) || b === 0x2c || b === 0x3a) {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (b === 0x7d || b === 0x5d) {
      if (!top) return undefined;
      top.node.end = i + 1;
      stack.pop();
      place(top.node);
      i++;
      continue;
    }
    if (top && !top.array && top.key === undefined) {
      // An object member's name.
      if (b !== QUOTE) return undefined;
      const end = stringEnd(raw, i);
      if (end < 0) return undefined;
      top.key = keyOf(raw, i, end);
      i = end;
      continue;
    }
    let node: Located;
    if (b === 0x7b || b === 0x5b) {
      stack.push({
        node: { start: i, end: -1, members: new Map() },
        array: b === 0x5b,
        key: undefined,
        next: 0,
      });
      i++;
      continue;
    }
    if (b === QUOTE) {
      const end = stringEnd(raw, i);
      if (end < 0) return undefined;
      node = { start: i, end };
    } else {
      let end = i + 1;
      while (!isEnd(raw[end])) end++;
      node = { start: i, end };
    }
    i = node.end;
    place(node);
  }
  return stack.length === 0 ? root : undefined;
}

/** Finds the located node of each holder by walking the parsed body beside its locations. */
function locateHolders(parsed: unknown, root: Located, holders: Set<object>): Map<object, Located> {
  const found = new Map<object, Located>();
  // Two stacks side by side, so the walk allocates nothing per value.
  const values: unknown[] = [parsed];
  const nodes: Located[] = [root];
  const visit = (v: unknown, at: Located | undefined) => {
    if (at?.members && typeof v === 'object' && v !== null) {
      values.push(v);
      nodes.push(at);
    }
  };
  while (values.length > 0 && found.size < holders.size) {
    const value = values.pop() as object;
    const at = nodes.pop() as Located;
    const members = at.members as Map<string | number, Located>;
    if (holders.has(value)) found.set(value, at);
    if (Array.isArray(value)) for (let k = 0; k < value.length; k++) visit(value[k], members.get(k));
    else for (const k in value) visit((value as Record<string, unknown>)[k], members.get(k));
  }
  return found;
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
  const root = locate(raw);
  if (!root) return undefined;
  const holders = locateHolders(parsed, root, new Set(edits.map((e) => e.holder)));
  const ranges: { start: number; end: number; text: string }[] = [];
  for (const edit of edits) {
    const at = holders.get(edit.holder)?.members?.get(edit.field);
    if (!at) return undefined;
    ranges.push({ start: at.start, end: at.end, text: JSON.stringify(edit.value) });
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
 * The byte ranges of the items of the top-level array `key` of a JSON body (its `messages`, its
 * `input`), in order; undefined when the body has no such array or does not scan.
 *
 * @example
 * arrayItemSpans(Buffer.from('{"messages":[{"a":1},2]}'), 'messages'); // [{ start: 13, end: 20 }, { start: 21, end: 22 }]
 */
export function arrayItemSpans(raw: Buffer, key: string): { start: number; end: number }[] | undefined {
  const array = locate(raw)?.members?.get(key);
  if (!array?.members) return undefined;
  return [...array.members.values()].map(({ start, end }) => ({ start, end }));
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
export function arrayItemSpansAfter(
  raw: Buffer,
  at: number,
): { spans: { start: number; end: number }[]; close: number } | undefined {
  const spans: { start: number; end: number }[] = [];
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
