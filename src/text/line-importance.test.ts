import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IMPORTANCE_SCAN_CHARS, type LineKind, lineKind, scanLines } from './line-importance.js';

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
  ['tests/test_pay.py:88: AssertionError', 'exception'],
  ['/usr/lib/python3.11/json/decoder.py:353: JSONDecodeError', 'exception'],
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
  ["(node:4242) Warning: Accessing non-existent property 'x' of module exports", 'warning'],
  ['/app/db.py:3: DeprecationWarning: pkg_resources is deprecated as an API', 'warning'],
  ['  File "/app/pay.py", line 88, in charge', 'frame'],
  ['    at charge (/app/src/pay.js:88:11)', 'frame'],
  ['src/pay.ts:88:11  Unexpected any. Specify a different type', 'diagnostic'],
  ['    at com.shop.Pay.charge(Pay.java:88)', 'frame'],
  ['\t/srv/shop/cart/cart.go:8', 'frame'],
  ['\t/srv/shop/main.go:27 +0x16c', 'frame'],
  ['\texample.com/shop/main.go:27 +0x16c', 'frame'],
  ['\t/srv/shop/main.go: reading the config', undefined],
  ["\tfrom shop.rb:6:in `block in total'", 'frame'],
  ["app/models/order.rb:12:in 'Order#total'", 'frame'],
  ['** (Enum.OutOfBoundsError) out of bounds error', 'exception'],
  ['** exception error: an error occurred when evaluating an arithmetic expression', 'exception'],
  ['** (see the docs) for more', undefined],
  ['    (elixir 1.14.0) lib/enum.ex:1072: Enum.fetch!/2', 'frame'],
  ['    shop.exs:4: anonymous fn/3 in Shop.Cart.total/2', 'frame'],
  ['#0 /srv/shop/Cart.php(4): Cart::price()', 'frame'],
  ['   at Shop.Cart.Total(List`1 items, Int32 n) in /src/Shop/Cart.cs:line 42', 'frame'],
  ['    cart_test.go:409: total of order 400 = 6, want 7', 'diagnostic'],
  ['--- PASS: TestTotal (0.00s)', undefined],
  ['--- SKIP: TestTotal (0.00s)', undefined],
  ['--- a/cart.go', 'diff'],
  ['Use of uninitialized value $x in concatenation (.) or string at shop.pl line 7.', 'diagnostic'],
  ['│   on main.tf line 12, in resource "aws_instance" "web":', 'diagnostic'],
  ['Read line 12 of the config', undefined],
  ['api-7d9c4-xk2p   0/1     CrashLoopBackOff   12 (3m ago)   30m', 'error'],
  ['api-7d9c4-m9qz   0/1     ImagePullBackOff   0             30m', 'error'],
  ['api-7d9c4-r4tw   0/1     CreateContainerConfigError   0   30m', 'error'],
  ['3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Exited (137) 5 minutes ago', 'error'],
  ['3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Exited (0) 5 minutes ago', undefined],
  ['3f2a1c9d   shop/api:1.4   "node server.js"   2 hours ago   Restarting (1) 3 seconds ago', 'error'],
  ['api-7d9c4-xk2p   1/1     Running            0             30m', undefined],
  // Merged output: docker compose, turbo, concurrently.
  ['web-1  | Traceback (most recent call last):', 'exception'],
  ['web-1  |   File "/app/shop/views.py", line 88, in checkout', 'frame'],
  ['12:00:01 web.1  | ValueError: amount must be positive', 'exception'],
  ['web:test: FAIL src/cart.test.ts > charges the card', 'failure'],
  ['[api] Traceback (most recent call last):', 'exception'],
  ['web-1  | GET /health 200 1ms', undefined],
  ['  1) test charges the card (Shop.CartTest)', 'failure'],
  ['5 tests, 5 failures', 'summary'],
  ['1 doctest, 12 tests, 0 failures', 'summary'],
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
  ['Build failed.', 'failure'],
  ['Failed to compile.', 'failure'],
  ['⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯', 'failure'],
  ["    toaster.error('Failed to load project users')", undefined],
  ['curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused', 'error'],
  ['Failed: 0', undefined],
  ['=================================== FAILURES ===================================', 'failure'],
  ['Exception in thread "main" java.lang.IllegalStateException: boom', 'exception'],
  ['E: Unable to locate package left-pad', 'error'],
  ['permission denied: ./run.sh', 'error'],
  ['The command "npm test" exited with 1.', 'exit'],
  ['The command "npm test" exited with 0.', undefined],
  ['CONFLICT (content): Merge conflict in src/app.ts', 'error'],
  [' ! [rejected]        main -> main (fetch first)', 'error'],
  // Structured logs: the level field says what the message does not.
  ['{"level":50,"time":1764579600000,"pid":42,"hostname":"api-7","msg":"database unavailable"}', 'error'],
  [
    '{"level": "error", "ts": "2026-12-01T09:30:00Z", "caller": "orders/sync.go:88", "msg": "sync stopped"}',
    'error',
  ],
  ['{"severity":"ERROR","message":"upstream timed out"}', 'error'],
  ['time="2026-12-01T09:00:00Z" level=error msg="connection refused" component=db', 'error'],
  ['{"level":60,"msg":"out of memory, exiting"}', 'error'],
  ['{"level":40,"time":1764579600000,"msg":"slow query took 2300 ms"}', 'warning'],
  ['{"levelname": "WARNING", "message": "retrying upload"}', 'warning'],
  ['level=warn msg="disk 91% full"', 'warning'],
  ['{"level":30,"time":1764579600000,"msg":"request completed","responseTime":12}', undefined],
  ['{"level":"info","msg":"listening on :8080"}', undefined],
  ['level=info msg="started" took=50ms', undefined],
  // Log levels above error, and processes a shell lost.
  ['2026-12-01 09:00:00,000 CRITICAL app: out of memory', 'error'],
  ['2026-12-01 09:00:00.123 UTC [812] PANIC:  could not write to file "pg_wal/xlogtemp.812"', 'error'],
  ['2026/12/01 09:00:00 [alert] 1#1: worker process 42 exited on signal 9', 'error'],
  ['[Mon Dec 01 09:00:00.000 2026] [ssl:emerg] [pid 42] AH02572: at least one certificate', 'error'],
  ['E1201 09:00:00.000000       1 reflector.go:138] watch of *v1.Pod ended', 'error'],
  ['W1201 09:00:00.000000       1 reflector.go:424] watch of *v1.Pod ended', 'warning'],
  ['I1201 09:00:00.000000       1 reflector.go:255] Listing and watching *v1.Pod', undefined],
  ['zsh: killed     node index.js', 'error'],
  ['zsh: illegal instruction  ./a.out', 'error'],
  ['EXIT CODE: 2', 'exit'],
  ['Command exited with non-zero status 1', 'exit'],
  ['subprocess.CalledProcessError: RETURNED NON-ZERO EXIT STATUS 2', 'exception'],
  ['at\tcharge (/app/src/pay.js:88:11)', 'frame'],
  ['Warning: unused import', 'warning'],
  ['from lib/RuntimeWarning import x', undefined],
  ['Bus error', 'error'],
  ['  critical path: 12 tasks', undefined],
  ['2026-12-01 09:00:00.000 | CRITICAL | app.db:connect:42 - pool exhausted', 'error'],
  ['[2026-12-01 09:00:00] [CRITICAL] pool exhausted', 'error'],
  ['CRITICAL:root:out of memory', 'error'],
  ['**CRITICAL**: Follow the Zero-Simplification Rule', undefined],
  ['### CRITICAL: keep the session id', undefined],
  ["DON'T PANIC: the answer is 42", undefined],
  ['      337 /usr/lib/llvm-14/build/utils/lit/tests/googletest-discovery-failed.py', undefined],
  ['     1176 /usr/lib/perf-core/scripts/perl/failed-syscalls.pl', undefined],
  ['     1750 /usr/include/llvm-c-14/llvm-c/Deprecated.h', undefined],
  ['  src/log/warn.ts', undefined],
  ['    logger.warn("retrying the upload");', undefined],
];

describe('line importance', () => {
  it('classifies the lines real tools print', () => {
    for (const [line, kind] of KINDS) expect(lineKind(line), line).toBe(kind);
  });

  it('finds every line a rule matches: the pre-filter passes each of them', () => {
    for (const [line, kind] of KINDS) {
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

  it('in a text over the scan limit, finds the errors, failures and tracebacks of its middle, numbered', () => {
    const filler = `${'x'.repeat(99)}\n`;
    const stretch = filler.repeat(Math.ceil(IMPORTANCE_SCAN_CHARS / 100));
    const middle = [
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
    // The middle is searched for what matters most; a warning there is not looked for, but the
    // traceback's frame is read with it.
    expect(found.map((f) => [split[f.line], f.kind])).toEqual([
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
