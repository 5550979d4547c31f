import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineIndex } from './line-index.js';

describe('LineIndex', () => {
  it('property: a walk either way visits the lines a split gives, stops where told, and leaves its last line known', () => {
    const piece = fc.constantFrom('a', 'bc', '\n', '\n\n', 'é\n', '😀');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (pieces, a, b, stopAfter) => {
          const text = pieces.join('');
          const lines = text.split('\n');
          const starts = lines.map((_, i) => lines.slice(0, i).reduce((n, l) => n + l.length + 1, 0));
          const from = a % lines.length;
          const last = b % lines.length;
          const step = last >= from ? 1 : -1;
          const index = new LineIndex(text);
          // Lines are found from known neighbours: walk the index up to `from` from its end.
          if (step > 0) for (let l = 0; l < from; l++) index.start(l);
          else for (let l = lines.length - 1; l > from; l--) index.start(l);
          const seen: [number, string][] = [];
          const found = index.walk(from, step, last, (line, t) => {
            if (seen.length >= stopAfter) return false;
            seen.push([line, t]);
            return true;
          });
          const span = Math.min(Math.abs(last - from) + 1, stopAfter);
          const lineAt = (i: number) => from + i * step;
          expect(seen).toEqual(Array.from({ length: span }, (_, i) => [lineAt(i), lines[lineAt(i)]]));
          expect(found).toBe(lineAt(span - 1));
          // The line after the last one visited is found from it.
          const next = found + step;
          if (span > 0 && next >= 0 && next < lines.length) expect(index.start(next)).toBe(starts[next]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
