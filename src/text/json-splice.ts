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
  const todo: [unknown, Located][] = [[parsed, root]];
  while (todo.length > 0 && found.size < holders.size) {
    const [value, at] = todo.pop() as [unknown, Located];
    if (typeof value !== 'object' || value === null || !at.members) continue;
    if (holders.has(value)) found.set(value, at);
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, k) => [k, v])
      : Object.entries(value);
    for (const [k, v] of entries) if (at.members.has(k)) todo.push([v, at.members.get(k) as Located]);
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
