import { SpillwayError } from '../../errors.js';
import { storedText } from '../../text/index.js';
import { parseRecallId } from '../ids.js';
import type { Store } from '../store.js';
import { readOriginal } from './verified-read.js';

/** The most one recall page carries. */
export const RECALL_PAGE_BYTES = 48 * 1024;

export interface RecallOptions {
  store: Store;
  /** Byte offset to start at (default 0); the footer of each page gives the next one. */
  offset?: number;
  /** Page size in bytes (default and maximum 48 KiB). */
  pageBytes?: number;
}

export interface RecallPage {
  id: string;
  /** The page as text, followed by its footer. */
  text: string;
  /** The exact bytes of the page. */
  body: Buffer;
  start: number;
  end: number;
  total: number;
  done: boolean;
}

/**
 * The footer after a page: `[bytes A-B of N; call spillway_expand with offset B for more]`, or
 * `[bytes A-B of N; end of output]` on the last page.
 *
 * @example
 * recallFooter(0, 49152, 100000); // '[bytes 0-49152 of 100000; call spillway_expand with offset 49152 for more]'
 */
export function recallFooter(
  start: number,
  end: number,
  total: number,
  maxBytes = Number.POSITIVE_INFINITY,
): string {
  return end < total
    ? `[bytes ${start}-${end} of ${total}; call spillway_expand with offset ${end} for more]`
    : `[bytes ${start}-${end} of ${total}; end of ${savedCopy(total, maxBytes)}]`;
}

/**
 * What a stored entry is: the output, or only its first bytes when it reached the store's limit
 * for one entry (a store keeps the first bytes of a longer body, cut at a character).
 *
 * @example
 * savedCopy(67108864, 67108864); // 'the saved copy, which is the first 67108864 bytes of the output only (the store keeps at most 67108864 bytes of one)'
 */
export function savedCopy(total: number, maxBytes: number): string {
  return total >= maxBytes - 3
    ? `the saved copy, which is the first ${total} bytes of the output only (the store keeps at most ${maxBytes} bytes of one)`
    : 'output';
}

/**
 * The message for an id with nothing behind it; final, so the model does not loop.
 *
 * @example
 * notFoundMessage('s/c'); // 'no stored tool result with id "s/c"; do not retry'
 */
export function notFoundMessage(id: string): string {
  return `no stored tool result with id ${JSON.stringify(id)}; do not retry`;
}

/**
 * One page of a stored original (a spill `session/call` or a stash id), at most 48 KiB, ending
 * on a UTF-8 character boundary. Throws `SPILLWAY_BAD_ID` for a malformed id and
 * `SPILLWAY_NOT_FOUND` (message: `no stored tool result with id "X"; do not retry`) for an
 * unknown or expired one.
 *
 * @example
 * let page = await recall('sess/call_1', { store });
 * while (!page.done) page = await recall('sess/call_1', { store, offset: page.end });
 */
export async function recall(id: string, options: RecallOptions): Promise<RecallPage> {
  const key = parseRecallId(id);
  const offset = options.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new SpillwayError('SPILLWAY_BAD_INPUT', `offset must be a whole number >= 0, got ${offset}`);
  }
  const pageBytes = Math.min(
    RECALL_PAGE_BYTES,
    Math.max(4, Math.floor(options.pageBytes ?? RECALL_PAGE_BYTES)),
  );
  const info = await options.store.stat(key);
  if (!info) throw new SpillwayError('SPILLWAY_NOT_FOUND', notFoundMessage(id));
  const total = info.bytes;
  if (offset > total) {
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `offset ${offset} is past the end of "${id}" (${total} bytes); use an offset from 0 to ${total}`,
    );
  }
  // One byte past the page shows whether the page would end inside a character.
  const raw = await readOriginal(options.store, key, {
    start: offset,
    end: Math.min(total, offset + pageBytes + 1),
  });
  if (!raw) throw new SpillwayError('SPILLWAY_NOT_FOUND', notFoundMessage(id));
  let cut = Math.min(raw.length, pageBytes);
  if (cut < raw.length) {
    let back = cut;
    for (let i = 0; i < 3 && back > 0 && ((raw[back] as number) & 0xc0) === 0x80; i++) back--;
    if (back > 0) cut = back;
  }
  const body = raw.subarray(0, cut);
  const end = offset + body.length;
  const done = end >= total;
  return {
    id,
    text: `${storedText(body)}\n${recallFooter(offset, end, total, options.store.limits.maxFileBytes)}`,
    body,
    start: offset,
    end,
    total,
    done,
  };
}

/**
 * The whole stored original, exactly as it was saved.
 *
 * @example
 * const original = await recallAll('sess/call_1', { store });
 */
export async function recallAll(id: string, options: { store: Store }): Promise<Buffer> {
  const body = await readOriginal(options.store, parseRecallId(id));
  if (!body) throw new SpillwayError('SPILLWAY_NOT_FOUND', notFoundMessage(id));
  return body;
}
