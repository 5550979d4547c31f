import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { trickyString } from '../../test-support/arbitraries.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../../test-support/corpus.js';
import { cl100kTokenizer, o200kTokenizer } from './bpe.js';
import { HARD_SPLIT, nextChunkEnd } from './pretoken-chunks.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
const ENCODINGS = [
  { name: 'o200k', ours: o200kTokenizer, lib: (s: string) => o200kCount(s, PLAIN) },
  { name: 'cl100k', ours: cl100kTokenizer, lib: (s: string) => cl100kCount(s, PLAIN) },
];

/** Counts chunk by chunk with a tiny target, so nearly every safe cut is used. */
function chunkedCount(text: string, count: (s: string) => number, target: number): number {
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = nextChunkEnd(text, start, target, Number.MAX_SAFE_INTEGER);
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

const textLike = fc.oneof(
  trickyString(80),
  fc
    .array(
      fc.constantFrom(
        'foo',
        'Bar',
        "don't",
        "it's",
        ' ',
        '  ',
        '\n',
        '\r\n',
        '\t',
        '123',
        '4567',
        ',',
        '"',
        ':',
        '{"a":1}',
        '/',
        '...',
        'é',
        'e\u0301',
        '中文',
        '😀',
        '\u00a0',
        '—',
      ),
      {
        maxLength: 120,
      },
    )
    .map((p) => p.join('')),
);

describe('BPE tokenizers', () => {
  for (const { name, ours, lib } of ENCODINGS) {
    it(`${name}: cutting at safe pre-token boundaries never changes the count`, () => {
      fc.assert(
        fc.property(textLike, fc.integer({ min: 1, max: 12 }), (text, target) => {
          expect(chunkedCount(text, lib, target)).toBe(lib(text));
        }),
        { numRuns: 1500 },
      );
    });

    it(`${name}: counts special-token strings as plain text, never throwing`, () => {
      for (const s of [
        '<|endoftext|>',
        'a <|im_start|>b<|im_end|> <|fim_prefix|>',
        '<|endofprompt|>'.repeat(3),
      ]) {
        expect(ours.count(s)).toBe(lib(s));
        expect(ours.count(s)).toBeGreaterThan(1);
      }
    });

    it(`${name}: countUpTo is exact at or under the limit and stops early above it`, () => {
      const text = 'word '.repeat(100_000);
      const total = ours.count(text);
      expect(ours.countUpTo(text, total)).toBe(total);
      const early = ours.countUpTo(text, 10);
      expect(early).toBeGreaterThan(10);
      // It read about one chunk, not the whole text.
      expect(early).toBeLessThan(total / 10);
      expect(ours.countUpTo('', 0)).toBe(0);
    });
  }

  it('splits a giant single pre-token instead of encoding it whole, and stays exact for a repeated letter', () => {
    const text = 'a'.repeat(1 << 20);
    // o200k encodes runs of 'a' eight to a token; the hard split length is a multiple of 8.
    expect(HARD_SPLIT % 8).toBe(0);
    expect(o200kTokenizer.count(text)).toBe((1 << 20) / 8);
    // Within 0.1% of the unsplit count on a giant run of other characters.
    const eq = '='.repeat(40_000);
    expect(Math.abs(o200kTokenizer.count(eq) - o200kCount(eq, PLAIN))).toBeLessThanOrEqual(
      o200kCount(eq, PLAIN) * 0.001,
    );
  });

  it.skipIf(!corpusAvailable)('agrees exactly with gpt-tokenizer on every corpus file', () => {
    const files = corpusFiles();
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const { ours, lib } of ENCODINGS) expect(ours.count(text), file).toBe(lib(text));
    }
  });
  if (!corpusAvailable) it.skip(CORPUS_MISSING, () => {});
});
