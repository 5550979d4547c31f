import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputCapture } from './output-capture.js';

describe('OutputCapture', () => {
  it('keeps everything up to the limit, then the first and last halves, and counts the rest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 64 }),
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 30 }),
        (limit, chunks) => {
          const capture = new OutputCapture(limit);
          for (const c of chunks) capture.push(Buffer.from(c));
          const all = Buffer.concat(chunks.map((c) => Buffer.from(c)));
          const { head, tail, dropped } = capture.result();
          if (all.length <= limit) {
            expect(Buffer.concat([head, tail]).equals(all)).toBe(true);
            expect(dropped).toBe(0);
          } else {
            expect(head.length + tail.length).toBe(limit);
            expect(head.equals(all.subarray(0, head.length))).toBe(true);
            expect(tail.equals(all.subarray(all.length - tail.length))).toBe(true);
            expect(dropped).toBe(all.length - limit);
          }
        },
      ),
    );
  });
});
