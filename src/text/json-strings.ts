/**
 * String values of a JSON text rewritten in place: every other character (numbers past 2^53,
 * `1.50`, a key given twice, spacing, escapes) stays exactly as written, which
 * `JSON.stringify(JSON.parse(text))` cannot promise.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The end (after the closing quote) of the string token that opens at `at`, or -1. */
function tokenEnd(text: string, at: number): number {
  for (let q = text.indexOf('"', at + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return -1;
}

/** A string token's value: sliced directly unless it holds an escape. */
function decoded(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}

/** One open container on the way to a value: an object's current key, an array's index. */
interface Frame {
  object: boolean;
  key: string;
  index: number;
  /** In an object: the next string is a key. */
  expectKey: boolean;
}

/** The member path of the value in the innermost frame: `edits[0].new_string`. */
function pathOf(stack: readonly Frame[]): string {
  let path = '';
  for (const frame of stack) {
    if (!frame.object) path += `[${frame.index}]`;
    else path += path ? `.${frame.key}` : frame.key;
  }
  return path;
}

/** What {@link replaceJsonStrings} offers for one string value. */
export interface JsonStringValue {
  /** The decoded value. */
  value: string;
  /** Its member path from the root (`content`, `edits[1].new_string`; `` for a root string). */
  path: string;
}

/**
 * The JSON text with some of its string values replaced: `replace` sees each string value (not
 * a key) whose token is at least `minChars` long, inside at most `maxDepth` containers, and
 * returns its new value or undefined to keep it. Only the replaced tokens change (written as
 * `JSON.stringify` writes a string). `text` must be valid JSON (check with JSON.parse first).
 *
 * @example
 * replaceJsonStrings('{"n":1.50,"body":"long…"}', ({ value }) => (value.length > 3 ? '[cut]' : undefined));
 * // '{"n":1.50,"body":"[cut]"}'
 */
export function replaceJsonStrings(
  text: string,
  replace: (string: JsonStringValue) => string | undefined,
  options: { minChars?: number; maxDepth?: number } = {},
): string {
  const minChars = options.minChars ?? 0;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const stack: Frame[] = [];
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = tokenEnd(text, i);
      if (end < 0) break;
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        top.key = decoded(text, i, end);
        top.expectKey = false;
      } else if (end - i >= minChars && stack.length <= maxDepth) {
        const next = replace({ value: decoded(text, i, end), path: pathOf(stack) });
        if (next !== undefined) {
          parts.push(text.slice(from, i), JSON.stringify(next));
          from = end;
        }
      }
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({ object: c === 0x7b, key: '', index: 0, expectKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}
