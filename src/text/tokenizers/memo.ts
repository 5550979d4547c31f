import { shortHash } from '../content-hash.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * Remembered counts, one table per tokenizer for the whole process (a count is a function of the
 * text, so every conversation can share it): its size bounds the memory, however many
 * conversations a proxy holds.
 */
const SHARED_COUNTS = new Map<string, Map<string, number>>();
const MAX_COUNTS = 50_000;
/** Shorter texts are counted again: hashing them costs about as much. */
const MIN_REMEMBERED = 32;

/**
 * The tokenizer with a memory: `count` remembers the counts of texts it has seen (by hash, in a
 * table shared by every memo of the same tokenizer, bounded at 50,000 texts), for callers that
 * count the same results turn after turn (the window guard, replay's statistics).
 *
 * @example
 * const t = memoTokenizer(getTokenizer('o200k')); t.count(log); t.count(log); // counted once
 */
export function memoTokenizer(tokenizer: Tokenizer): Tokenizer {
  let table = SHARED_COUNTS.get(tokenizer.name);
  if (!table) {
    table = new Map<string, number>();
    SHARED_COUNTS.set(tokenizer.name, table);
  }
  const counts = table;
  return {
    name: tokenizer.name,
    count(text) {
      if (text.length < MIN_REMEMBERED) return tokenizer.count(text);
      const key = shortHash(text);
      let n = counts.get(key);
      if (n === undefined) {
        n = tokenizer.count(text);
        if (counts.size >= MAX_COUNTS) counts.clear();
        counts.set(key, n);
      }
      return n;
    },
    countUpTo: (text, limit) => tokenizer.countUpTo(text, limit),
  };
}
