import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDigest, originalOf, stashId } from './content-hash.js';
import { storedBytes } from './stored-text.js';

describe('originalOf', () => {
  it('property: hash and id are those of the stored bytes, for any text (lone surrogates, U+FFFD, long)', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
      fc.constantFrom('\ufffd', '\ud800', '\udc00', '😀', 'é', 'a'),
    );
    fc.assert(
      fc.property(fc.string({ unit }), fc.integer({ min: 0, max: 70_000 }), (text, pad) => {
        // Past the length hashed directly as a string too.
        for (const t of [text, `${'x'.repeat(pad)}${text}`]) {
          const original = originalOf(t);
          const bytes = storedBytes(t);
          expect(original.hash()).toBe(contentDigest(bytes).toString('base64url'));
          expect(original.id()).toBe(stashId(bytes));
          expect(original.body().equals(bytes)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hashes the bytes given, not the text decoded from them', () => {
    const raw = Buffer.from([0x61, 0xff, 0x62]);
    expect(originalOf(raw.toString('utf8'), raw).id()).toBe(stashId(raw));
  });
});
