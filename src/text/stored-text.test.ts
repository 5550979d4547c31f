import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRANSCODE_MIN_CHARS, TRANSCODE_SLICE, utf8Bytes } from './measure.js';
import { storedBytes, storedText } from './stored-text.js';

describe('stored text', () => {
  it('is UTF-8 for well-formed text, and keeps lone surrogates as themselves', () => {
    expect(storedBytes('é😀').equals(Buffer.from('é😀', 'utf8'))).toBe(true);
    expect([...storedBytes('a\ud800b')]).toEqual([0x61, 0xed, 0xa0, 0x80, 0x62]);
    expect(storedText(storedBytes('x\udc00\ud83d'))).toBe('x\udc00\ud83d');
    // Hangul (ED 80-9F ...) is ordinary UTF-8 and stays so.
    expect(storedText(storedBytes('한국어 텍스트'))).toBe('한국어 텍스트');
  });

  it('property: any JS string round-trips exactly; a range decodes like the slice it covers', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) }),
        fc.string({ unit: 'grapheme' }),
        (odd, plain) => {
          expect(storedText(storedBytes(odd))).toBe(odd);
          const bytes = storedBytes(plain);
          expect(storedText(bytes)).toBe(bytes.toString('utf8'));
          const head = Buffer.byteLength(plain.slice(0, 3));
          expect(storedText(bytes, 0, head)).toBe(bytes.toString('utf8', 0, head));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: the bytes are the generalised UTF-8 of each code point, lone surrogates included', () => {
    // The reference encodes code point by code point (for..of yields a lone surrogate alone).
    const generalised = (text: string) => {
      const bytes: number[] = [];
      for (const ch of text) {
        const c = ch.codePointAt(0) as number;
        if (c < 0x80) bytes.push(c);
        else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
        else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
        else
          bytes.push(
            0xf0 | (c >> 18),
            0x80 | ((c >> 12) & 0x3f),
            0x80 | ((c >> 6) & 0x3f),
            0x80 | (c & 0x3f),
          );
      }
      return Buffer.from(bytes);
    };
    const unit = fc.oneof(
      fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udfff', '\udbff\udc00'),
      fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 64 }), (text) => {
        expect([...storedBytes(text)]).toEqual([...generalised(text)]);
      }),
      { numRuns: 1000 },
    );
  });

  it('property: long text, encoded by ICU slice by slice, gives the bytes of the short path', () => {
    // Any code units (lone surrogates too) placed around the first slice boundary, or at the
    // length where ICU takes over, among ASCII or two-byte text.
    const unit = fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u));
    fc.assert(
      fc.property(
        fc.constantFrom(TRANSCODE_SLICE, TRANSCODE_MIN_CHARS, 2 * TRANSCODE_SLICE),
        fc.integer({ min: -4, max: 4 }),
        fc.string({ unit, maxLength: 8 }),
        fc.constantFrom('a', 'é', '😀'),
        (at, shift, piece, filler) => {
          const head = filler.repeat(Math.ceil((at + shift) / filler.length)).slice(0, at + shift);
          const text = `${head}${piece}${filler.repeat(3)}`;
          expect(utf8Bytes(text).equals(Buffer.from(text, 'utf8'))).toBe(true);
          const stored = storedBytes(text);
          expect(storedText(stored)).toBe(text);
          if (text.isWellFormed()) expect(stored.equals(Buffer.from(text, 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
