import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readRerunDiff, rerunDiff } from './diff.js';
import { alignLines } from './line-align.js';

describe('rerun diff', () => {
  it('shows a rerun as what changed, each unchanged stretch one line naming both places, the last lines as they are', () => {
    const earlier = Array.from({ length: 20 }, (_, i) => `test ${i} ... ok`).join('\n');
    const lines = earlier.split('\n');
    lines[12] = 'test 12 ... FAILED';
    lines.push('1 failed, 19 passed');
    const diff = rerunDiff(earlier, lines.join('\n'));
    expect(diff?.body).toBe(
      [
        '[lines 1-12 as lines 1-12 of the earlier run]',
        'test 12 ... FAILED',
        '[lines 14-16 as lines 14-16 of the earlier run]',
        'test 16 ... ok',
        'test 17 ... ok',
        'test 18 ... ok',
        'test 19 ... ok',
        '1 failed, 19 passed',
      ].join('\n'),
    );
    expect(diff).toMatchObject({ same: 15, lines: 21 });
  });

  it('shows a line that matters even when it did not change: the earlier run may be out of sight', () => {
    const earlier = Array.from({ length: 30 }, (_, i) => (i === 9 ? 'error: disk full' : `line ${i}`)).join(
      '\n',
    );
    const body = rerunDiff(earlier, earlier)?.body.split('\n');
    expect(body?.slice(0, 3)).toEqual([
      '[lines 1-9 as lines 1-9 of the earlier run]',
      'error: disk full',
      '[lines 11-25 as lines 11-25 of the earlier run]',
    ]);
  });

  it('does not let a common line pull the alignment ahead', () => {
    expect(alignLines(['}', 'a', 'b', '}', 'c'], ['x', '}', 'c'])).toEqual([
      { kind: 'new', from: 0, to: 2 },
      { kind: 'same', from: 2, to: 3, oldFrom: 4 },
    ]);
  });

  it('refuses an output that has a line like its own markers', () => {
    expect(rerunDiff('a', 'a\n[lines 1-2 as lines 1-2 of the earlier run]')).toBeUndefined();
  });

  it('property: the diff read back with the earlier output is the new output, byte for byte', () => {
    const line = fc.constantFrom('ok', 'FAIL a', 'b', '', '}', 'x 1', 'x 2', 'warning: y', '[lines', 'é');
    const text = fc.array(line, { maxLength: 60 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (earlier, now) => {
        const diff = rerunDiff(earlier, now);
        if (diff) expect(readRerunDiff(diff.body, earlier)).toBe(now);
      }),
      { numRuns: 3000 },
    );
    // And a rerun that mostly repeats: the earlier lines with some deleted, replaced or added.
    const edit = fc.tuple(fc.nat(80), fc.constantFrom('delete', 'replace', 'insert'), line);
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 80 }),
        fc.array(edit, { maxLength: 8 }),
        (lines, edits) => {
          const now = [...lines];
          for (const [at, kind, text] of edits) {
            const i = at % (now.length + 1);
            if (kind === 'insert') now.splice(i, 0, text);
            else if (kind === 'delete') now.splice(i, 1);
            else now[i] = text;
          }
          const earlier = lines.join('\n');
          const diff = rerunDiff(earlier, now.join('\n'));
          if (diff) expect(readRerunDiff(diff.body, earlier)).toBe(now.join('\n'));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
