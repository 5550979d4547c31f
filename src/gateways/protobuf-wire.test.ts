import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lengthField, varintField, type WireField, wireFields } from './protobuf-wire.js';

const field = fc.oneof(
  fc.record({ no: fc.integer({ min: 1, max: 536_870_911 }), varint: fc.maxSafeNat() }),
  fc.record({
    no: fc.integer({ min: 1, max: 536_870_911 }),
    bytes: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  }),
);

describe('the protobuf wire format', () => {
  it('reads back every field it writes, in order', () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 8 }), (fields: WireField[]) => {
        const message = Buffer.concat(
          fields.map((f) => ('varint' in f ? varintField(f.no, f.varint) : lengthField(f.no, f.bytes))),
        );
        expect([...wireFields(message)]).toEqual(fields);
      }),
    );
  });

  it('refuses a field that runs past its message', () => {
    const cut = lengthField(4, Buffer.alloc(100)).subarray(0, 50);
    expect(() => [...wireFields(cut)]).toThrow(/runs past/);
  });
});
