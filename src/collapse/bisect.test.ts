import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { largestFitting } from './bisect.js';

describe('largestFitting', () => {
  it('property: finds the last n that fits, as a scan would, asking about no n twice', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.nat(500), (good, span, limit) => {
        const bad = good + 1 + span;
        const asked = new Set<number>();
        const found = largestFitting(good, bad, (n) => {
          expect(n > good && n < bad && !asked.has(n)).toBe(true);
          asked.add(n);
          return n <= limit;
        });
        expect(found).toBe(Math.max(good, Math.min(limit, bad - 1)));
        expect(asked.size).toBeLessThanOrEqual(Math.ceil(Math.log2(bad - good)) + 1);
      }),
    );
  });
});
