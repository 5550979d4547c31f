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
