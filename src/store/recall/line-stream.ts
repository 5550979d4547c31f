import { storedText } from '../../text/index.js';
import type { StoreKey } from '../ids.js';
import type { Store } from '../store.js';
import { readOriginal } from './verified-read.js';

/** How much of a stored original is read at a time. */
export const STREAM_CHUNK_BYTES = 1024 * 1024;

/** One line of a stored original: its number from 1, its text (without the newline), and the byte it starts at. */
export interface StreamedLine {
  number: number;
  text: string;
  offset: number;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads a stored original a chunk at a time and hands each line to `onLine` until it returns
 * false, yielding to the event loop between chunks: a 30 MB original is never loaded whole and
 * never blocks the server. Each chunk is decoded once (up to its last newline, so no character
 * is split). Works the same on every store (ranged reads). A final newline ends the last line;
 * it does not start another.
 *
 * @example
 * await streamLines(store, key, total, (line) => { if (line.text.includes('ERROR')) hits.push(line.number); });
 */
export async function streamLines(
  store: Store,
  key: StoreKey,
  total: number,
  onLine: (line: StreamedLine) => boolean | undefined | Promise<boolean | undefined>,
): Promise<void> {
  // The start of a line that has not ended yet, in pieces: a 50 MB line is joined once, not
  // copied again with every chunk.
  let carry: Buffer[] = [];
  let number = 1;
  for (let at = 0; at < total; at += STREAM_CHUNK_BYTES) {
    const chunk = await readOriginal(store, key, {
      start: at,
      end: Math.min(total, at + STREAM_CHUNK_BYTES),
    });
    if (!chunk) return;
    const lastNewline = chunk.lastIndexOf(10);
    if (lastNewline < 0) {
      carry.push(chunk);
      await yieldToEventLoop();
      continue;
    }
    const data = carry.length ? Buffer.concat([...carry, chunk]) : chunk;
    const dataStart = at - (data.length - chunk.length);
    const end = data.length - (chunk.length - lastNewline);
    const text = storedText(data, 0, end);
    // Line starts in bytes, found beside those in characters: each newline byte decodes to one
    // newline character, whatever the bytes around it.
    let byteFrom = 0;
    for (let from = 0; ; ) {
      const nl = text.indexOf('\n', from);
      const line = {
        number,
        text: nl < 0 ? text.slice(from) : text.slice(from, nl),
        offset: dataStart + byteFrom,
      };
      byteFrom = data.indexOf(10, byteFrom) + 1;
      let go = onLine(line);
      if (go instanceof Promise) go = await go;
      if (go === false) return;
      number++;
      if (nl < 0) break;
      from = nl + 1;
    }
    carry = [chunk.subarray(lastNewline + 1)];
    await yieldToEventLoop();
  }
  const rest = Buffer.concat(carry);
  if (rest.length > 0 || total === 0)
    await onLine({ number, text: storedText(rest), offset: total - rest.length });
}

/**
 * The newlines of a stored original, counted on its bytes a chunk at a time: how many there
 * are before each chunk, and its number of lines.
 *
 * @example
 * const { lines, before } = await countLines(store, key, total);
 */
export async function countLines(
  store: Store,
  key: StoreKey,
  total: number,
): Promise<{ lines: number; before: number[] }> {
  const before: number[] = [];
  let newlines = 0;
  let last = -1;
  for (let at = 0; at < total; at += STREAM_CHUNK_BYTES) {
    before.push(newlines);
    const chunk = await readOriginal(store, key, {
      start: at,
      end: Math.min(total, at + STREAM_CHUNK_BYTES),
    });
    if (!chunk) break;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
    last = chunk[chunk.length - 1] ?? -1;
    await yieldToEventLoop();
  }
  // Lines: one more than the newlines, unless the last byte is a newline (it ends a line).
  const lines = total === 0 ? 1 : last === 10 ? newlines : newlines + 1;
  return { lines, before: before.length ? before : [0] };
}
