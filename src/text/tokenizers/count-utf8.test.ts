import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countUtf8UpTo } from './count-utf8.js';
import { cl100kTokenizer, heuristicTokenizer, o200kTokenizer } from './index.js';

const TOKENIZERS = [o200kTokenizer, cl100kTokenizer, heuristicTokenizer];

// Text of words, numbers, punctuation, spaces, line ends and characters of 2, 3 and 4 bytes, so
// a prefix can end anywhere: mid-word, mid-character, between two spaces.
const text = fc
  .array(
    fc.constantFrom(
      'error',
      ' ',
      '  ',
      '\n',
      '42',
      '.',
      ':',
      'é',
      '日本',
      '😀',
      'aaaaaaaa',
      '{"a":1}',
      '\t',
      "'s",
    ),
    { maxLength: 1200 },
  )
  .map((parts) => parts.join(''));

describe('countUtf8UpTo', () => {
  it('property: the exact count at or under the limit, a number over it past it, as countUpTo of the decoded text', () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom(...TOKENIZERS),
        (t, limit, tokenizer) => {
          const exact = tokenizer.count(t);
          const counted = countUtf8UpTo(tokenizer, Buffer.from(t), limit);
          if (exact <= limit) expect(counted).toBe(exact);
          else expect(counted).toBeGreaterThan(limit);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads on past a prefix that is under the limit when the whole is over it', () => {
    // 16 KB of words of spaces (few tokens: the prefix read first is under the limit), then a
    // dense log that takes the whole over it.
    const sparse = `x${' '.repeat(63)}`.repeat(250) + 'error: disk full\n'.repeat(400);
    for (const tokenizer of [o200kTokenizer, cl100kTokenizer]) {
      const total = tokenizer.count(sparse);
      expect(total).toBeGreaterThan(1000);
      expect(countUtf8UpTo(tokenizer, Buffer.from(sparse), 1000)).toBeGreaterThan(1000);
      expect(countUtf8UpTo(tokenizer, Buffer.from(sparse), total)).toBe(total);
    }
  });

  it('answers a message far over the limit from a prefix of it, exactly at the limit', () => {
    const log = 'step ok\nerror: disk full\n'.repeat(50_000);
    for (const tokenizer of TOKENIZERS) {
      const total = tokenizer.count(log);
      expect(countUtf8UpTo(tokenizer, Buffer.from(log), 1000)).toBeGreaterThan(1000);
      expect(countUtf8UpTo(tokenizer, Buffer.from(log), total)).toBe(total);
      expect(countUtf8UpTo(tokenizer, Buffer.from(log), total - 1)).toBeGreaterThan(total - 1);
    }
  });
});
