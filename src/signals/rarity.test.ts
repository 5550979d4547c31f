import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonRecords, keyValueLog, podTable } from '../test-support/rare-fixtures.js';
import { rareLines } from './rarity.js';

const lineCount = (text: string) => text.split('\n').length;

const lineOf = (text: string, needle: string) => text.split('\n').indexOf(needle);

describe('rarity', () => {
  it('finds, with no rule for them, the crash-looping pod, the degraded state and the odd JSON record', () => {
    for (const { text, needle } of [podTable(317), keyValueLog(2_871), jsonRecords(6_203)]) {
      const rare = rareLines(text, lineCount(text)).map((r) => r.line);
      expect(rare, needle).toContain(lineOf(text, needle));
      expect(rare.length, needle).toBeLessThanOrEqual(12);
    }
  });

  it('finds the odd value at a position where every other line agrees, in a line as long as the others', () => {
    const lines = Array.from(
      { length: 400 },
      (_, i) => `worker-${i} queue=payments state=idle jobs=${i % 9}`,
    );
    lines[123] = 'worker-123 queue=payments state=wedged jobs=4';
    const rare = rareLines(lines.join('\n'), 400);
    expect(rare[0]).toMatchObject({ line: 123, oddPositions: 1 });
  });

  it('finds nothing in an output with nothing usual: a source file, or prose', () => {
    const source = Array.from(
      { length: 300 },
      (_, i) =>
        `const value${i} = compute${i % 37}(input, ${i}); // step ${String.fromCharCode(97 + (i % 26))}`,
    );
    // Lines alike but for their numbers are one template: nothing rare in them.
    expect(rareLines(source.join('\n'), 300)).toEqual([]);
    const words =
      'the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches'.split(' ');
    const prose = Array.from({ length: 200 }, (_, i) =>
      Array.from({ length: 3 + (i % 11) }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' '),
    );
    expect(rareLines(prose.join('\n'), 200).length).toBeLessThanOrEqual(12);
    expect(rareLines('a\nb\nc', 3)).toEqual([]);
  });

  it('property: the lines it returns are real lines of the text, in order, with their offsets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('job ok', 'job ok', 'job ok', 'job failed hard', 'x=1', ''), {
          maxLength: 300,
        }),
        (parts) => {
          const text = parts.join('\n');
          const split = text.split('\n');
          const rare = rareLines(text, split.length);
          expect(rare.length).toBeLessThanOrEqual(12);
          for (let i = 0; i < rare.length; i++) {
            const r = rare[i] as (typeof rare)[number];
            expect(text.slice(r.start, r.end)).toBe(split[r.line]);
            if (i > 0) expect(r.line).toBeGreaterThan((rare[i - 1] as (typeof rare)[number]).line);
          }
        },
      ),
    );
  });
});
