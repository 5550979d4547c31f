/**
 * The lines a recall reads: the stored original's, or those of one string inside it when the
 * original is JSON (a collapsed `{"stdout": "<log>"}` numbers the lines of its string, so a
 * marker's "lines 120-180" are the string's, not the JSON's one line).
 */

import { SpillwayError } from '../../errors.js';
import { storedText } from '../../text/index.js';
import type { StoreKey } from '../ids.js';
import type { Store } from '../store.js';
import { streamLines } from './line-stream.js';
import { readOriginal } from './verified-read.js';

/**
 * The largest original read whole to find a string in it: collapse names fields only in JSON
 * of at most 4 Mi characters (collapse/json.ts), 12 MiB at most in UTF-8.
 */
export const MAX_FIELD_ORIGINAL_BYTES = 12 * 1024 * 1024;
// A pointer's tokens: at most this many (a JSON value nests no deeper in practice).
const MAX_POINTER_TOKENS = 64;

/** A line a recall reads; `offset`, the byte it starts at, only for the original's own lines. */
export interface RecallLine {
  number: number;
  text: string;
  offset?: number | undefined;
}

type OnLine = (line: RecallLine) => boolean | undefined | Promise<boolean | undefined>;

function bad(message: string): SpillwayError {
  return new SpillwayError('SPILLWAY_BAD_INPUT', message);
}

/**
 * The reference tokens of a JSON pointer (RFC 6901): `/stdout` is `['stdout']`, `/a~1b/0` is
 * `['a/b', '0']`. Refused unless it is one (an empty pointer names the whole value).
 *
 * @example
 * pointerTokens('/result/content/0/text'); // ['result', 'content', '0', 'text']
 */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!/^(?:\/(?:[^~/]|~[01])*)+$/.test(pointer))
    throw bad(
      `field must be a JSON pointer like "/stdout" or "/content/0/text", got ${JSON.stringify(pointer)}`,
    );
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (tokens.length > MAX_POINTER_TOKENS) throw bad(`field has more than ${MAX_POINTER_TOKENS} levels`);
  return tokens;
}

/** The string at `pointer` in the stored JSON original. */
async function fieldText(store: Store, key: StoreKey, total: number, pointer: string): Promise<string> {
  const tokens = pointerTokens(pointer);
  if (total > MAX_FIELD_ORIGINAL_BYTES)
    throw bad(`the original is ${total} bytes, over the ${MAX_FIELD_ORIGINAL_BYTES} a field is read from`);
  const raw = (await readOriginal(store, key, { start: 0, end: total })) ?? Buffer.alloc(0);
  let value: unknown;
  try {
    value = JSON.parse(storedText(raw, 0, raw.length));
  } catch {
    throw bad('the original is not JSON: ask for its lines without field');
  }
  for (const token of tokens) {
    const own = value !== null && typeof value === 'object' && Object.hasOwn(value, token);
    if (!own) throw bad(`the original has nothing at ${pointer}`);
    value = (value as Record<string, unknown>)[token];
  }
  if (typeof value !== 'string') throw bad(`${pointer} is not a string in the original`);
  return value;
}

/**
 * Calls `onLine` for each line a recall reads, in order, until it returns false: the stored
 * original's (streamed), or with `field` those of the string at that JSON pointer.
 *
 * @example
 * await eachLine(store, key, total, '/stdout', ({ number, text }) => void console.log(number, text));
 */
export async function eachLine(
  store: Store,
  key: StoreKey,
  total: number,
  field: string | undefined,
  onLine: OnLine,
): Promise<void> {
  if (field === undefined) return streamLines(store, key, total, onLine);
  const text = await fieldText(store, key, total, field);
  let number = 1;
  for (let from = 0; from <= text.length; number++) {
    let end = text.indexOf('\n', from);
    if (end < 0) end = text.length;
    // A string ending in a newline has no line after it, as a file has none.
    if (from === text.length && number > 1) return;
    if ((await onLine({ number, text: text.slice(from, end) })) === false) return;
    from = end + 1;
  }
}
