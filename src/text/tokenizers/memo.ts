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
 * The tokenizer with a memory: `count` and `countUpTo` remember what they learned of the texts
 * they have seen (by hash, in a table shared by every memo of the same tokenizer, bounded at
 * 50,000 texts), for callers that count the same results turn after turn (the window guard,
 * replay's statistics).
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
  const counted = (text: string, limit: number) =>
    limit === Number.POSITIVE_INFINITY ? tokenizer.count(text) : tokenizer.countUpTo(text, limit);
  const countUpTo = (text: string, limit: number): number => {
    if (text.length < MIN_REMEMBERED) return counted(text, limit);
    const key = shortHash(text);
    const answer = knownCountUpTo(counts.get(key), limit);
    if (answer !== undefined) return answer;
    const n = counted(text, limit);
    if (counts.size >= MAX_COUNTS) counts.clear();
    counts.set(key, rememberedCount(n, limit));
    return n;
  };
  return { name: tokenizer.name, count: (text) => countUpTo(text, Number.POSITIVE_INFINITY), countUpTo };
}

/**
 * What to remember of `countUpTo(text, limit) = n`: the count when it is exact (at most the
 * limit), else `-(limit + 1)`: "more than `limit`", all that was learned.
 *
 * @example
 * rememberedCount(12, 100); // 12
 * rememberedCount(101, 100); // -101
 */
export function rememberedCount(n: number, limit: number): number {
  return n <= limit ? n : -(limit + 1);
}

/**
 * The answer to `countUpTo(text, limit)` from a remembered count (see {@link rememberedCount}),
 * or undefined when it does not tell (nothing remembered, or "more than" a smaller limit).
 *
 * @example
 * knownCountUpTo(-101, 50); // 101: more than 100 is more than 50
 * knownCountUpTo(-101, 500); // undefined: count again
 */
export function knownCountUpTo(known: number | undefined, limit: number): number | undefined {
  if (known === undefined) return undefined;
  if (known >= 0) return known;
  return -known > limit ? -known : undefined;
}
