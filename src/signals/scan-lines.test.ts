import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineKind } from './classify.js';
import type { LineKind } from './kinds.js';
import { IMPORTANCE_SCAN_CHARS, scanLines } from './scan-lines.js';
import { PACKS } from './table.js';

// What each format prints is in the signal table, with examples (src/signals/packs). Here: merged
// output, whose lines name their source first, and ordinary lines.
const KINDS: [string, LineKind | undefined][] = [
  ['web-1  | Traceback (most recent call last):', 'exception'],
  ['web-1  |   File "/app/shop/views.py", line 88, in checkout', 'frame'],
  ['12:00:01 web.1  | ValueError: amount must be positive', 'exception'],
  ['web:test: FAIL src/cart.test.ts > charges the card', 'failure'],
  ['[api] Traceback (most recent call last):', 'exception'],
  ['web-1  | GET /health 200 1ms', undefined],
  ['Downloading https://registry.npmjs.org/left-pad 2.1 kB', undefined],
  ['  compiled module-12.ts in 4 ms', undefined],
];
const EXAMPLES: [string, LineKind][] = PACKS.flatMap((p) =>
  p.rules.flatMap((r) => r.examples.map((e): [string, LineKind] => [e, r.kind])),
);

describe('line importance', () => {
  it('classifies the lines real tools print', () => {
    for (const [line, kind] of KINDS) expect(lineKind(line), line).toBe(kind);
  });

  it("finds every example of the signal table's rules, and merged output's lines, with their kind", () => {
    for (const [line, kind] of [...EXAMPLES, ...KINDS]) {
      if (kind === undefined) continue;
      const found = scanLines(`compiled\n${line}\ncompiled`).important;
      expect(
        found.map((f) => [f.line, f.kind]),
        line,
      ).toEqual([[1, kind]]);
    }
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
    expect(scanLines(lines.join('\n')).important.map((f) => [f.line, f.kind])).toEqual([
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
    const found = scanLines(text).important;
    expect(found.map((f) => [f.line, f.kind])).toEqual([
      [7, 'error'],
      [2500, 'exception'],
      [4999, 'failure'],
    ]);
    for (const f of found) expect(text.slice(f.start, f.end)).toBe(lines[f.line]);
  });

  it('in a text over the scan limit, finds the errors, failures, tracebacks and warnings of its middle, numbered', () => {
    const filler = `${'x'.repeat(99)}\n`;
    const stretch = filler.repeat(Math.ceil(IMPORTANCE_SCAN_CHARS / 100));
    const middle = [
      // Summaries, exit statuses and a deprecation not called a warning are looked for at the
      // ends only.
      '12 passed, 3 skipped in 0.41s',
      'Process finished with exit code 1',
      'the flag is deprecated',
      ...Array.from({ length: 6 }, () => 'x'.repeat(99)),
      'warning: deprecated flag',
      'Traceback (most recent call last):',
      '  File "/srv/app/pay.py", line 12, in charge',
      'ValueError: card declined',
      'src/pay.c:12:5: error: expected ;',
      'FAILED tests/test_pay.py::test_charge',
      // Past what reading on from the failure takes in.
      ...Array.from({ length: 6 }, () => 'x'.repeat(99)),
      '** (RuntimeError) no :secret_key_base configuration found in Shop.Endpoint.',
      '    (shop 0.1.0) lib/shop/endpoint.ex:1: Shop.Endpoint.call/2',
    ];
    const text = `${stretch}${stretch}${middle.join('\n')}\n${stretch}${stretch}done\n`;
    const split = text.split('\n');
    const scan = scanLines(text);
    expect(scan.lines).toBe(split.length);
    const found = scan.important.filter(
      (f) => f.start > IMPORTANCE_SCAN_CHARS && f.end < text.length - IMPORTANCE_SCAN_CHARS,
    );
    // The middle is searched for what an agent must not miss; the traceback's frame is read
    // with it.
    expect(found.map((f) => [split[f.line], f.kind])).toEqual([
      ['warning: deprecated flag', 'warning'],
      ['Traceback (most recent call last):', 'exception'],
      ['  File "/srv/app/pay.py", line 12, in charge', 'frame'],
      ['ValueError: card declined', 'exception'],
      ['src/pay.c:12:5: error: expected ;', 'error'],
      ['FAILED tests/test_pay.py::test_charge', 'failure'],
      ['** (RuntimeError) no :secret_key_base configuration found in Shop.Endpoint.', 'exception'],
      ['    (shop 0.1.0) lib/shop/endpoint.ex:1: Shop.Endpoint.call/2', 'frame'],
    ]);
    for (const f of scan.important) expect(text.slice(f.start, f.end)).toBe(split[f.line]);
  });

  it('finds a klog error line wherever it starts, the first line of the middle included', () => {
    // Its mark begins with the line end before it, which the search must not have passed.
    const filler = `${'x'.repeat(63)}\n`;
    const block = filler.repeat(4096); // 256 Ki characters: the first block is the head window
    const klog = 'E1201 09:00:00.000000       1 reflector.go:138] watch ended';
    for (const at of [1, 2, 5]) {
      const blocks = Array.from({ length: 12 }, (_, i) => (i === at ? `${klog}\n${block}` : block));
      const text = blocks.join('');
      expect(scanLines(text).important.map((f) => [f.line, f.kind])).toEqual([[at * 4096, 'error']]);
    }
    // Right where reading on from an error stopped, four ordinary lines after it.
    const text = `${block}${block}error: disk full\nok\nok\nok\nok\n${klog}\n${block}${block}${block}${block}`;
    const split = text.split('\n');
    const found = scanLines(text).important;
    expect(found.map((f) => [split[f.line], f.kind])).toEqual([
      ['error: disk full', 'error'],
      [klog, 'error'],
    ]);
    for (const f of found) expect(text.slice(f.start, f.end)).toBe(split[f.line]);
  });

  it('in the middle, looks past prose about errors, and past a stretch of candidates that are not', () => {
    const prose = 'retried the request after an error\n'.repeat(100_000);
    // Each of these has the mark of an error but is not one; they fill more than a stretch.
    const lookalikes = 'xerror: 1\n'.repeat(40_000);
    const text = `${prose}${lookalikes}${prose}error: disk full\n${prose}`;
    expect(text.length).toBeGreaterThan(2 * IMPORTANCE_SCAN_CHARS);
    const split = text.split('\n');
    const scan = scanLines(text);
    expect(scan.lines).toBe(split.length);
    expect(scan.important.map((f) => [split[f.line], f.line])).toEqual([['error: disk full', 240_000]]);
  });

  it('property: over the scan limit, lines are counted and numbered exactly, and what matters is found where it is searched for', () => {
    const filler = `${'x'.repeat(63)}\n`;
    const block = filler.repeat(4096); // 256 Ki characters
    const line = fc.constantFrom(
      'error: x',
      'ValueError: y',
      'FAILED t::z',
      'warning: w',
      '  at f (a.js:1:2)',
      'ok',
      'Traceback (most recent call last):',
      '{"level":"error","msg":"sync stopped"}',
      '{"level":50,"msg":"db down"}',
      'level=fatal msg="out of disk"',
      '{"level":40,"msg":"slow"}',
      'CRITICAL:root:out of memory',
      'E1201 09:00:00.000000       1 a.go:1] x',
      '2026/12/01 [alert] 1#1: y',
      'zsh: killed     node a.js',
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 11 }), line), { maxLength: 12 }), (placed) => {
        const blocks = Array.from({ length: 12 }, () => [block]);
        for (const [at, l] of placed) blocks[at]?.push(`${l}\n`);
        const text = blocks.map((b) => b.join('')).join('');
        const split = text.split('\n');
        const scan = scanLines(text);
        expect(scan.lines).toBe(split.length);
        for (const f of scan.important) {
          expect(text.slice(f.start, f.end)).toBe(split[f.line]);
          expect(lineKind(split[f.line] as string)).toBe(f.kind);
        }
        // Everywhere: errors, failures and exceptions. In the first and last stretches: all.
        const inEnds = (start: number) =>
          start < IMPORTANCE_SCAN_CHARS / 4 || start >= text.length - (IMPORTANCE_SCAN_CHARS * 3) / 4;
        const found = new Set(scan.important.map((f) => f.line));
        let start = 0;
        split.forEach((l, i) => {
          const kind = lineKind(l);
          if (kind && (inEnds(start) || ['error', 'failure', 'exception'].includes(kind)))
            expect(found.has(i), `${i}: ${l}`).toBe(true);
          start += l.length + 1;
        });
      }),
      { numRuns: 25 },
    );
  });

  it('property: the line count, numbers and offsets it reports agree with splitting the text', () => {
    const line = fc.constantFrom(
      'ok',
      'error: x',
      'warning: y',
      '',
      '  at f (a.js:1:2)',
      'plain text',
      '✗ no',
      'E: Unable to locate package x',
      'CONFLICT (content): Merge conflict in a.ts',
      ' ! [rejected]        main -> main (fetch first)',
      'curl: (7) Failed to connect',
      'Exception in thread "main" java.lang.Error',
      '{"level":50,"msg":"db down"}',
      '{"severity": "CRITICAL", "message": "x"}',
      'level=warn msg=y',
      '{"level":30,"msg":"ok"}',
      'PANIC:  no space',
      'W1201 09:00:00.000000       1 a.go:1] x',
      '[ssl:emerg] [pid 42] z',
      'bash: killed  x',
      'Bus error',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        const text = lines.join('\n');
        const scan = scanLines(text);
        expect(scan.lines).toBe(text.split('\n').length);
        for (const f of scan.important) {
          expect(text.slice(f.start, f.end)).toBe(lines[f.line]);
          expect(lineKind(lines[f.line] as string)).toBe(f.kind);
        }
        const expected = lines.flatMap((l, i) => (lineKind(l) ? [i] : []));
        expect(scan.important.map((f) => f.line)).toEqual(expected);
      }),
    );
  });
});

describe('the middle of a long output', () => {
  it('is searched line by line for errors: a candidate-dense stretch hides no error after its first few dozen lines', () => {
    // Every line has an error mark ("onError(") and is not an error.
    const line = (i: number) =>
      `2026-12-02T09:00:${String(i % 60).padStart(2, '0')}Z INFO retry ${i} ok, handled by onError(cb)`;
    const count = Math.ceil((8 * IMPORTANCE_SCAN_CHARS) / line(100_000).length);
    const lines = Array.from({ length: count }, (_, i) => line(i));
    const at = [Math.floor(count / 2) + 777, Math.floor(count * 0.3) + 2345];
    for (const a of at) lines[a] = 'panic: runtime error: invalid memory address or nil pointer dereference';
    const scan = scanLines(lines.join('\n'));
    expect(scan.important.map((f) => f.line)).toEqual(at.sort((x, y) => x - y));
  });
});
