import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it, vi } from 'vitest';
import { trickyString } from '../../test-support/arbitraries.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../../test-support/corpus.js';
import { cl100kTokenizer, MAX_TOKEN_BYTES, o200kTokenizer } from './bpe.js';
import { nextChunkEnd } from './pretoken-chunks.js';

const require = createRequire(import.meta.url);
const PLAIN = { disallowedSpecial: new Set<string>() };
const ENCODINGS = [
  { name: 'o200k', ours: o200kTokenizer, lib: (s: string) => o200kCount(s, PLAIN) },
  { name: 'cl100k', ours: cl100kTokenizer, lib: (s: string) => cl100kCount(s, PLAIN) },
];

/** Counts chunk by chunk with a tiny target, so nearly every safe cut is used. */
function chunkedCount(text: string, count: (s: string) => number, target: number): number {
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = nextChunkEnd(text, start, target);
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

/** Long stretches with no safe cut: where the library's merge is quadratic and ours is not. */
const pathological = fc
  .tuple(
    fc.constantFrom(
      'abcdefghijklmnopqrstuvwxyz',
      'ab',
      'a',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/',
      '中文字符测试日本語한국어',
      '=\n',
      ' ',
      '\r\n',
      'é\u0301',
      '\ud800x',
      '😀a',
    ),
    fc.integer({ min: 100, max: 3_000 }),
    fc.integer(),
    textLike,
  )
  .map(([alphabet, length, seed, tail]) => {
    const chars = [...alphabet];
    let s = '';
    let x = seed >>> 0;
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      s += chars[x % chars.length];
    }
    return tail + s + tail;
  });

describe('BPE tokenizers', () => {
  it('no token of either encoding is longer than MAX_TOKEN_BYTES, and some are that long', () => {
    for (const encoding of ['o200k_base', 'cl100k_base']) {
      const ranks = require(`gpt-tokenizer/bpeRanks/${encoding}`).default as (string | number[])[];
      const longest = ranks.reduce(
        (max, t) => Math.max(max, typeof t === 'string' ? Buffer.byteLength(t) : t.length),
        0,
      );
      expect(longest).toBe(MAX_TOKEN_BYTES);
    }
  });

  it('never clones its pre-token regex: a clone is compiled again after two full collections', () => {
    // String.prototype.matchAll clones a regex through its species constructor; V8 compiles the
    // clone again (about 10 ms for o200k's) whenever its compilation cache was dropped.
    const matchAll = vi.spyOn(RegExp.prototype, Symbol.matchAll);
    try {
      for (const { ours } of ENCODINGS) {
        ours.count('a short marker: lines 4-175316 of 175318 omitted');
        ours.count(`${'x'.repeat(70_000)} and a stretch with no safe cut, counted by the heap merge`);
        ours.countUpTo('word '.repeat(20_000), 10);
      }
      expect(matchAll).not.toHaveBeenCalled();
    } finally {
      matchAll.mockRestore();
    }
  });

  it('countUpTo answers a text far over the limit without reading it, with a number over the limit', () => {
    for (const tokenizer of [o200kTokenizer, cl100kTokenizer]) {
      // Every character its own token: the count is the length, the bound is far below it.
      const text = '\u{1F600}'.repeat(200_000);
      const over = tokenizer.countUpTo(text, 1000);
      expect(over).toBeGreaterThan(1000);
      expect(over).toBeLessThanOrEqual(tokenizer.count(text));
    }
  });

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

  for (const { name, ours, lib } of ENCODINGS) {
    it(`${name}: exact on long stretches with no safe cut (one giant pre-token, CJK, whitespace runs)`, () => {
      fc.assert(
        fc.property(pathological, (text) => {
          expect(ours.count(text)).toBe(lib(text));
        }),
        { numRuns: 120 },
      );
    });

    it(`${name}: countUpTo stops early inside a giant pre-token without merging it`, () => {
      const text = 'x'.repeat(3 << 20);
      expect(ours.countUpTo(text, 100)).toBeGreaterThan(100);
    });
  }

  it('is exact on a giant single pre-token: a megabyte of one letter, 32,000 random letters', () => {
    // o200k encodes runs of 'a' eight to a token.
    expect(o200kTokenizer.count('a'.repeat(1 << 20))).toBe((1 << 20) / 8);
    let letters = '';
    for (let i = 0, x = 7; i < 32_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      letters += String.fromCharCode(97 + (x % 26));
    }
    expect(o200kTokenizer.count(letters)).toBe(o200kCount(letters, PLAIN));
  });

  it.skipIf(!corpusAvailable)(
    'agrees exactly with gpt-tokenizer on every corpus file (needs ../shared/corpus)',
    () => {
      const files = corpusFiles();
      expect(files.length).toBeGreaterThan(20);
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        for (const { ours, lib } of ENCODINGS) expect(ours.count(text), file).toBe(lib(text));
      }
    },
  );
  if (!corpusAvailable) it.skip(CORPUS_MISSING, () => {});
});
