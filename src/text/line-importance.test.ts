import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMPORTANCE_SCAN_CHARS, importantLines, type LineKind, lineKind } from './line-importance.js';

// Lines as real tools print them.
const KINDS: [string, LineKind | undefined][] = [
  ["src/pay.ts(88,11): error TS2345: Argument of type 'string' is not assignable", 'error'],
  ['src/pay.ts:88:11 - error TS2345: Argument of type', 'error'],
  ['error[E0308]: mismatched types', 'error'],
  ["main.c:12:5: error: expected ';' before 'return'", 'error'],
  ['npm ERR! code ERESOLVE', 'error'],
  ['fatal: not a git repository (or any of the parent directories): .git', 'error'],
  ['Segmentation fault (core dumped)', 'error'],
  ['bash: foo: command not found', 'error'],
  ['Traceback (most recent call last):', 'exception'],
  ['ValueError: invalid literal for int() with base 10', 'exception'],
  ['java.lang.NullPointerException: Cannot invoke "String.length()"', 'exception'],
  ["thread 'main' panicked at src/main.rs:4:5:", 'exception'],
  ['panic: runtime error: index out of range [3] with length 3', 'exception'],
  ['FAIL src/pay.test.ts > charges the card', 'failure'],
  ['--- FAIL: TestCharge (0.00s)', 'failure'],
  ['not ok 3 - charges the card', 'failure'],
  ['E       assert 1 == 2', 'failure'],
  ['  ✗ charges the card', 'failure'],
  ['make: *** [Makefile:12: build] Error 2', 'error'],
  ['Process finished with exit code 1', 'exit'],
  ['Tests:       1 failed, 41 passed, 42 total', 'failure'],
  ['test result: ok. 12 passed; 0 failed; 0 ignored', 'summary'],
  ['Ran 412 tests in 3.021s', 'summary'],
  ['# pass 411', 'summary'],
  ['main.c:7:9: warning: unused variable ‘x’ [-Wunused-variable]', 'warning'],
  ['npm WARN deprecated inflight@1.0.6: This module is not supported', 'warning'],
  ['  File "/app/pay.py", line 88, in charge', 'frame'],
  ['    at charge (/app/src/pay.js:88:11)', 'frame'],
  ['src/pay.ts:88:11  Unexpected any. Specify a different type', 'diagnostic'],
  ['    at com.shop.Pay.charge(Pay.java:88)', 'frame'],
  ['@@ -12,7 +12,9 @@ export function charge() {', 'diff'],
  ['diff --git a/src/pay.ts b/src/pay.ts', 'diff'],
  // Ordinary lines, and lines that only look alarming.
  ['  compiled module-12.ts in 4 ms', undefined],
  ['Found 0 errors. Watching for file changes.', 'summary'],
  ['errors: 0', undefined],
  ['0 errors', undefined],
  ['Downloading https://registry.npmjs.org/left-pad 2.1 kB', undefined],
  ['  ✓ charges the card (12 ms)', undefined],
  ['ok 4 - refunds the card', undefined],
];

describe('line importance', () => {
  it('classifies the lines real tools print', () => {
    for (const [line, kind] of KINDS) expect(lineKind(line), line).toBe(kind);
  });

  it('finds the frames under an exception by reading on from it', () => {
    const lines = [
      'ok',
      'ok',
      'TypeError: x is undefined',
      '    at f (a.js:1:2)',
      '    at g (b.js:3:4)',
      'ok',
      'ok',
    ];
    expect(importantLines(lines.join('\n')).map((f) => [f.line, f.kind])).toEqual([
      [2, 'exception'],
      [3, 'frame'],
      [4, 'frame'],
    ]);
  });

  it('finds every important line with its number and offsets, and classifies each line once', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `step ${i} ok`);
    lines[7] = 'error: first';
    lines[2500] = 'Traceback (most recent call last):';
    lines[4999] = 'FAILED tests/test_pay.py::test_charge';
    const text = lines.join('\n');
    const found = importantLines(text);
    expect(found.map((f) => [f.line, f.kind])).toEqual([
      [7, 'error'],
      [2500, 'exception'],
      [4999, 'failure'],
    ]);
    for (const f of found) expect(text.slice(f.start, f.end)).toBe(lines[f.line]);
  });

  it('numbers lines from the end beyond the scanned start of a text over the scan limit', () => {
    const filler = `${'x'.repeat(99)}\n`;
    const head = filler.repeat(Math.ceil(IMPORTANCE_SCAN_CHARS / 100));
    const text = `${head}${filler.repeat(20_000)}error: late\n${filler.repeat(10)}`;
    const count = text.split('\n').length;
    const [found] = importantLines(text, undefined, count);
    expect(found?.kind).toBe('error');
    expect(text.split('\n')[found?.line as number]).toBe('error: late');
  });

  it('property: the line numbers and offsets it reports agree with splitting the text', () => {
    const line = fc.constantFrom(
      'ok',
      'error: x',
      'warning: y',
      '',
      '  at f (a.js:1:2)',
      'plain text',
      '✗ no',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const text = lines.join('\n');
        for (const f of importantLines(text)) {
          expect(text.slice(f.start, f.end)).toBe(lines[f.line]);
          expect(lineKind(lines[f.line] as string)).toBe(f.kind);
        }
        const expected = lines.flatMap((l, i) => (lineKind(l) ? [i] : []));
        expect(importantLines(text).map((f) => f.line)).toEqual(expected);
      }),
    );
  });
});
