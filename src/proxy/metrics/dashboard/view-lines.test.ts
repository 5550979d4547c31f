import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapse } from '../../../collapse/index.js';
import { LINE_WEIGHT, lineSignal } from '../../../signals/index.js';
import { MemoryStore } from '../../../store/backends/memory-store.js';
import { jsonCompactedHeader, lineGapMarker, maskPlaceholder, withoutRecall } from '../../../text/index.js';
import { viewLines } from './view-lines.js';

const ERROR = 'src/pay.c:88:3: error: expected ";" before "}" token';
const WARNING = 'src/pay.c:12:5: warning: unused variable "x" [-Wunused-variable]';
const EXCEPTION = 'Traceback (most recent call last):';
const ORDINARY = 'step 7: compiled module_7.c in 7 ms';

describe('viewLines: what the dashboard marks in a decision and where it opens', () => {
  it('opens a real collapse at the error it kept, deep in the view, and marks its gaps', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `step ${i}: compiled module_${i}.c in ${i % 70} ms`);
    lines[2100] = ERROR;
    const out = await collapse(lines.join('\n'), { tokens: 2000, store: new MemoryStore() });
    const view = out.text.split('\n');
    const { markers, kept, keptLine } = viewLines(out.text);
    expect(kept).toBeDefined();
    expect(view[kept as number]).toBe(ERROR);
    // Its number in the original, counted through the gaps before it.
    expect(keptLine).toBe(2101);
    // Far enough down that a pane opened at line 1 would not show it.
    expect(kept).toBeGreaterThan(40);
    expect(markers.length).toBeGreaterThan(0);
    for (const i of markers) expect(view[i]).toMatch(/^\.\.\. \(lines \d+-\d+ .*omitted/);
  });

  it('prefers the first error to an earlier warning', () => {
    expect(viewLines([ORDINARY, WARNING, ORDINARY, ERROR, ERROR].join('\n'))).toEqual({
      markers: [],
      kept: 3,
      keptLine: 4,
    });
  });

  it('never opens at a marker, even one that quotes an error, with or without a recall id', () => {
    const quoting = lineGapMarker(8, 3095, 6000, { mostly: 'error: failed to compile pay.c' });
    expect(lineSignal(quoting)).toBeDefined();
    const tagged = lineGapMarker(2, 900, 990, { id: 'Ab3' });
    const untagged = withoutRecall(`a\n${tagged}\nz`, 'Ab3').split('\n').at(-2) as string;
    const masked = maskPlaceholder('Bash', 't1', 3000, 'Ab3');
    const view = [ORDINARY, quoting, tagged, untagged, masked, WARNING].join('\n');
    expect(viewLines(view)).toEqual({ markers: [1, 2, 3, 4], kept: 5 });
  });

  it('numbers the kept line through the gaps, and not past a marker that is not one', () => {
    const gap = lineGapMarker(2, 9, 20, { id: 'Ab3' });
    expect(viewLines(['a', gap, 'b', ERROR].join('\n'))).toEqual({ markers: [1], kept: 3, keptLine: 11 });
    expect(viewLines([ERROR, gap].join('\n'))).toEqual({ markers: [1], kept: 0, keptLine: 1 });
    const single = lineGapMarker(4, 4, 20);
    expect(viewLines(['a', 'b', 'c', single, ERROR].join('\n'))).toMatchObject({ keptLine: 5 });
    const json = jsonCompactedHeader({ items: 10, strings: 0 }, 'Ab3');
    expect(viewLines([json, ERROR].join('\n'))).toEqual({ markers: [0], kept: 1 });
    const masked = maskPlaceholder('Bash', 't1', 3000, 'Ab3');
    expect(viewLines([masked, gap, ERROR].join('\n'))).toEqual({ markers: [0, 1], kept: 2, keptLine: 10 });
  });

  it('opens at line 1 when no rule names a line', () => {
    expect(viewLines([ORDINARY, ORDINARY].join('\n'))).toEqual({ markers: [] });
  });

  it('keeps the first line of the most important kind there is (property)', () => {
    const pool = [
      ORDINARY,
      WARNING,
      ERROR,
      EXCEPTION,
      lineGapMarker(3, 9, 20, { id: 'Ab3' }),
      'FAILED tests/a.py',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 30 }), (lines) => {
        const { markers, kept } = viewLines(lines.join('\n'));
        const weights = lines.map((line, i) => {
          const kind = markers.includes(i) ? undefined : lineSignal(line)?.kind;
          return kind ? LINE_WEIGHT[kind] : 0;
        });
        const top = Math.max(0, ...weights);
        expect(kept).toBe(top === 0 ? undefined : weights.indexOf(top));
        for (const i of markers) expect(lines[i]).toContain('omitted');
      }),
    );
  });
});
