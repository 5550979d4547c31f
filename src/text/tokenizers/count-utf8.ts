import { decodeUtf8 } from '../measure.js';
import { lastSafeCut } from './pretoken-chunks.js';
import type { Tokenizer } from './tokenizer.js';

/** Bytes a token rarely outgrows on average: a prefix this many bytes a token usually passes the limit. */
const PREFIX_BYTES_PER_TOKEN = 8;

/** How far back from a prefix's end a safe cut is looked for (text rarely goes this long without one). */
const CUT_SEARCH = 1024;

/**
 * `tokenizer.countUpTo` of UTF-8 bytes, decoding only what the count needs: a message of 10 MB
 * under a cap of 150,000 tokens is decoded a megabyte or so in, not whole (decoding it took
 * longer than the count). A prefix that ends at a safe cut never counts more than the whole
 * (the two sides of a safe cut count separately), so a prefix over the limit answers for it;
 * otherwise the whole is decoded and counted.
 *
 * @example
 * countUtf8UpTo(getTokenizer('o200k'), tenMegabyteLog, 150_000); // > 150000, after reading about 600 KB
 */
export function countUtf8UpTo(tokenizer: Tokenizer, bytes: Buffer, limit: number): number {
  const prefixBytes = Math.floor(limit * PREFIX_BYTES_PER_TOKEN);
  if (prefixBytes > 0 && bytes.length > prefixBytes + CUT_SEARCH) {
    // Back off to the start of a character (past at most three continuation bytes).
    let end = prefixBytes;
    while (end > Math.max(0, prefixBytes - 3) && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    const text = decodeUtf8(bytes.subarray(0, end));
    const cut = lastSafeCut(text, Math.max(0, text.length - CUT_SEARCH), text.length - 1);
    if (cut > 0) {
      const prefix = tokenizer.countUpTo(text.slice(0, cut), limit);
      if (prefix > limit) return prefix;
    }
  }
  return tokenizer.countUpTo(decodeUtf8(bytes), limit);
}
