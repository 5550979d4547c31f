import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHAR_FLOOR } from '../../collapse/char-window.js';
import { collapseText } from '../../collapse/index.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { jsonLine, logLines, runOne, testContext } from '../../test-support/stages.js';
import { stashId } from '../../text/content-hash.js';
import { markerIds } from '../../text/markers.js';
import { MAX_TOKEN_BYTES } from '../../text/tokenizers/bpe.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import type { Tokenizer } from '../../text/tokenizers/tokenizer.js';
import { collapseStage } from './collapse.js';

const o200k = getTokenizer('o200k');

async function collapse(text: string, options: Parameters<typeof collapseText>[1], tokenizer = o200k) {
  const store = new MemoryStore();
  const out = await collapseText(text, options, {
    tokenizer,
    id: () => stashId(text),
    stash: async () => store.putIfAbsent({ dir: 'pruned', name: stashId(text) }, Buffer.from(text)),
  });
  return { out, store };
}

/**
 * `middle` between `around` lines on each side of a server log whose lines differ in more than
 * numbers (so they do not fold), each line starting with `prefix`.
 */
function amidServedOrders(middle: readonly string[], around = 2000, prefix = ''): string {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf'];
  const served = (i: number) =>
    `${prefix}order ${i} for ${words[i % 7]}/${words[Math.floor(i / 7) % 7]} shipped via ${words[Math.floor(i / 49) % 7]}`;
  const side = (from: number) => Array.from({ length: around }, (_, i) => served(from + i));
  return [...side(0), ...middle, ...side(around + 1)].join('\n');
}

describe('collapse (the seed cases)', () => {
  it('a 2,000-line log fills the budget with whole lines from both ends around a numbered gap', async () => {
    const log = logLines(2000);
    const { out, store } = await collapse(log, { budget: 2000 });
    expect(out).toMatchObject({ action: 'acted', window: 'line' });
    if (out.action !== 'acted') return;
    const tokens = o200k.count(out.text);
    expect(tokens).toBeLessThanOrEqual(2000);
    expect(tokens).toBeGreaterThanOrEqual(1900);
    const lines = out.text.split('\n');
    const gap = lines.findIndex((l) => l.startsWith('... (lines '));
    const original = log.split('\n');
    expect(gap).toBeGreaterThan(20);
    expect(lines.slice(0, gap)).toEqual(original.slice(0, gap));
    const tail = lines.slice(gap + 1);
    expect(tail.length).toBeGreaterThan(20);
    expect(tail).toEqual(original.slice(-tail.length));
    expect(lines[gap]).toBe(
      `... (lines ${gap + 1}-${2000 - tail.length} of 2000 omitted: ${2000 - tail.length - gap} more like the line above; full output: spillway_expand <<sw:${out.id}>>) ...`,
    );
    expect((await recallAll(out.id as string, { store })).toString()).toBe(log);
  });

  it('folds a run of 100,000 lines shaped alike into one marker, and keeps the failure after it', async () => {
    // Folds used to stop every 20,000 lines, so the model read the same marker five times over.
    const lines = Array.from({ length: 100_000 }, (_, i) => `fetched chunk ${i} of 100000 (ok)`);
    lines.push('FAILED: checksum mismatch in chunk 99999');
    const log = lines.join('\n');
    const { out, store } = await collapse(log, { budget: 1000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.window).toBe('line');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1000);
    expect(out.text.match(/more like the line above/g)).toHaveLength(1);
    expect(out.text.endsWith(lines.at(-1) as string)).toBe(true);
    expect((await recallAll(out.id as string, { store })).toString()).toBe(log);
  });

  it('folds a column padded to line up numbers as one run: pytest -v from test_9 to test_10 and past 10%', async () => {
    // pytest pads each line to put its percentage in one column, so the run of spaces shortens
    // as the numbers grow; each change used to end a fold and cost two lines and a marker.
    const lines = Array.from({ length: 1500 }, (_, i) => {
      const line = `tests/test_ledger.py::test_case_${i} ${i === 700 ? 'FAILED' : 'PASSED'}`;
      return `${line.padEnd(73)}[${String(Math.floor((i * 100) / 1500)).padStart(3)}%]`;
    });
    const log = lines.join('\n');
    const { out } = await collapse(log, { budget: 1000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.text).toContain(lines[700]);
    // One fold before the failure and one after it.
    expect(out.text.match(/more like the line above/g)).toHaveLength(2);
  });

  it('keeps the error of a structured log by its level, in the middle of 7 MB', async () => {
    // pino writes an error as "level":50; the message need not say "error".
    const messages = [
      'request completed',
      'cache hit',
      'session refreshed',
      'job queued',
      'job done',
      'config reloaded',
    ];
    const lines = Array.from(
      { length: 60_000 },
      (_, i) =>
        `{"level":30,"time":${1764579600000 + i},"pid":4242,"hostname":"api-7","reqId":"req-${i}","responseTime":${i % 90},"msg":"${messages[(i * 7) % messages.length]}"}`,
    );
    lines[31_000] =
      '{"level":50,"time":1764579631000,"pid":4242,"hostname":"api-7","msg":"database unavailable"}';
    const log = lines.join('\n');
    expect(log.length).toBeGreaterThan(7_000_000);
    const { out } = await collapse(log, { budget: 2000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(out.text).toContain(lines[31_000]);
  });

  it('compacts a diff by its files and hunks, and recalls it whole', async () => {
    const file = (f: number) => [
      `diff --git a/src/m${f}.ts b/src/m${f}.ts`,
      'index 83db48f..bf269f4 100644',
      `--- a/src/m${f}.ts`,
      `+++ b/src/m${f}.ts`,
      ...Array.from({ length: 8 }, (_, h) => [
        `@@ -${h * 50 + 1},7 +${h * 50 + 1},7 @@ export function f${h}() {`,
        '   const a = 1;',
        '   const b = 2;',
        '   const c = 3;',
        `-  return a + b; // ${f}.${h}`,
        `+  return a + b + c; // ${f}.${h}`,
        '   }',
        '   // end',
        '   // done',
      ]).flat(),
    ];
    const diff = Array.from({ length: 12 }, (_, f) => file(f).join('\n')).join('\n');
    const { out, store } = await collapse(diff, { budget: 1500 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.window).toBe('diff');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1500);
    // Too many hunks for all their headers: every file listed, then as many as fit in full.
    expect(out.text).toContain('\nsrc/m11.ts | +8 -8\n');
    expect(out.text).toContain('\ndiff --git a/src/m0.ts b/src/m0.ts\n');
    expect((await recallAll(out.id as string, { store })).toString()).toBe(diff);
  });

  it('keeps the error in the middle of a 3,000-line test log, with the lines beside it', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `  ✓ checkout flow case ${i} (${i % 40} ms)`);
    lines[1499] = '  ✓ charges the card (12 ms)';
    lines[1500] = 'ERROR PaymentError: amount must be positive at src/pay.ts:88';
    lines[1501] = '    at charge (src/pay.ts:88:11)';
    const log = lines.join('\n');
    const { out } = await collapse(log, { budget: 2000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(o200k.count(out.text)).toBeGreaterThanOrEqual(1900);
    expect(out.text).toContain(`${lines[1499]}\n${lines[1500]}\n${lines[1501]}`);
  });

  it('keeps the exception line and the top and bottom frames of a long stack trace', async () => {
    const frames = Array.from(
      { length: 80 },
      (_, i) => `\tat com.shop.layer${i}.Handler.handle(Handler.java:${i + 10})`,
    );
    const lines = [
      ...Array.from({ length: 1500 }, (_, i) => `INFO request ${i} served in ${i % 90} ms`),
      'Exception in thread "main" java.lang.IllegalStateException: cart is empty',
      ...frames,
      ...Array.from({ length: 1500 }, (_, i) => `INFO request ${1500 + i} served in ${i % 90} ms`),
    ];
    const { out } = await collapse(lines.join('\n'), { budget: 2000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(out.text).toContain(lines[1500]);
    for (const frame of [...frames.slice(0, 3), ...frames.slice(-2)]) expect(out.text).toContain(frame);
  });

  it("keeps the program's own frames of each trace when both ends are the runtime's (cargo test, RUST_BACKTRACE=1)", async () => {
    // Two panics of a real `cargo test` run: each trace starts in Rust's panic machinery and
    // ends in the test harness; the frames that say where the fault is are in between.
    const std = '/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library';
    const machinery = [
      ['__rustc::rust_begin_unwind', `${std}/std/src/panicking.rs:689:5`],
      ['core::panicking::panic_fmt', `${std}/core/src/panicking.rs:80:14`],
    ];
    const harness = [
      ['core::ops::function::FnOnce::call_once', `${std}/core/src/ops/function.rs:250:5`],
      [
        '<fn() -> core::result::Result<(), alloc::string::String> as core::ops::function::FnOnce<()>>::call_once',
        `${std}/core/src/ops/function.rs:250:5`,
      ],
    ];
    const trace = (test: string, message: string, top: string[][], own: string[][]) => [
      `---- tests::${test} stdout ----`,
      '',
      `thread 'tests::${test}' panicked at ${(own[0] as string[])[1]}:`,
      message,
      'stack backtrace:',
      ...[...top, ...own, ...harness].flatMap(([fn, at], i) => [`   ${i}: ${fn}`, `             at ${at}`]),
      'note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.',
      '',
    ];
    const lines = [
      'running 600 tests',
      ...Array.from(
        { length: 600 },
        (_, i) => `test tests::case_${i} ... ${i === 311 || i === 450 ? 'FAILED' : 'ok'}`,
      ),
      '',
      'failures:',
      '',
      ...trace(
        'case_311',
        'index out of bounds: the len is 3 but the index is 314',
        [...machinery, ['core::panicking::panic_bounds_check', `${std}/core/src/panicking.rs:271:5`]],
        [
          ['bt::tests::helper', './src/lib.rs:1203:45'],
          ['bt::tests::case_311', './src/lib.rs:626:87'],
          ['bt::tests::case_311::{{closure}}', './src/lib.rs:626:18'],
        ],
      ),
      ...trace(
        'case_450',
        'called `Result::unwrap()` on an `Err` value: "connection refused"',
        [
          ...machinery,
          ['core::result::unwrap_failed', `${std}/core/src/result.rs:1867:5`],
          ['core::result::Result<T,E>::unwrap', `${std}/core/src/result.rs:1233:23`],
        ],
        [
          ['bt::tests::case_450', './src/lib.rs:904:86'],
          ['bt::tests::case_450::{{closure}}', './src/lib.rs:904:18'],
        ],
      ),
      'failures:',
      '    tests::case_311',
      '    tests::case_450',
      '',
      'test result: FAILED. 598 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s',
    ];
    const { out } = await collapse(lines.join('\n'), { budget: 1000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1000);
    for (const own of [
      '   3: bt::tests::helper\n             at ./src/lib.rs:1203:45',
      '   4: bt::tests::case_311\n             at ./src/lib.rs:626:87',
      '   4: bt::tests::case_450\n             at ./src/lib.rs:904:86',
    ])
      expect(out.text).toContain(own);
  });

  it('keeps the frames of a Go panic recovered in the middle of a server log', async () => {
    const trace = [
      '2026/12/01 13:14:39 panic serving order 2500: runtime error: index out of range [3] with length 3',
      'goroutine 1 [running]:',
      'runtime/debug.Stack()',
      '\t/usr/lib/go-1.19/src/runtime/debug/stack.go:24 +0x65',
      'main.handle.func1()',
      '\t/srv/shop/main.go:24 +0x58',
      'panic({0x49cea0, 0xc0000cc000})',
      '\t/usr/lib/go-1.19/src/runtime/panic.go:884 +0x212',
      'example.com/shop/cart.Total(...)',
      '\t/srv/shop/cart/cart.go:8',
      'main.process(...)',
      '\t/srv/shop/main.go:18',
      'main.handle(0x9c3)',
      '\t/srv/shop/main.go:28 +0x406',
      'main.main()',
      '\t/srv/shop/main.go:34 +0x45',
    ];
    const { out } = await collapse(amidServedOrders(trace, 2500), { budget: 600 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(600);
    expect(out.text).toContain('example.com/shop/cart.Total(...)\n\t/srv/shop/cart/cart.go:8');
  });

  it.each([
    [
      'Ruby',
      [
        "E, [2026-12-01T13:22:56.770224 #23588] ERROR -- : shop.rb:5:in `price': undefined method `[]' for nil:NilClass (NoMethodError)",
        '',
        'def price(items, i) = items[i][:price] * 2',
        '                              ^^^^^^^^',
        "\tfrom shop.rb:6:in `block in total'",
        "\tfrom shop.rb:6:in `each'",
        "\tfrom shop.rb:6:in `sum'",
        "\tfrom shop.rb:6:in `total'",
        "\tfrom shop.rb:10:in `block in <main>'",
      ],
    ],
    [
      'Elixir',
      [
        '** (Enum.OutOfBoundsError) out of bounds error',
        '    (elixir 1.14.0) lib/enum.ex:1072: Enum.fetch!/2',
        '    shop.exs:3: Shop.Cart.price/2',
        '    shop.exs:4: anonymous fn/3 in Shop.Cart.total/2',
        '    (elixir 1.14.0) lib/enum.ex:4299: Enum.reduce_range/5',
        '    shop.exs:12: anonymous fn/2 in Shop.run/0',
      ],
    ],
    [
      'PHP',
      [
        'order 2000 failed: OutOfRangeException: no item 3 in /srv/shop/shop.php:3',
        'Stack trace:',
        '#0 /srv/shop/shop.php(4): Cart::price()',
        '#1 /srv/shop/shop.php(9): Cart::total()',
        '#2 {main}',
      ],
    ],
  ])("keeps %s's exception and its frames from the middle of a log", async (_, trace) => {
    const { out } = await collapse(amidServedOrders(trace), { budget: 600 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(600);
    // The exception and the program's frames (the library's may give way to the budget).
    for (const line of trace.filter((l) => /shop|^\*\* \(/.test(l))) expect(out.text).toContain(line);
  });

  it("ESLint's stylish format: keeps the file an error is listed under, however far above it", async () => {
    const lines: string[] = [''];
    for (let f = 1; f <= 60; f++) {
      lines.push(`/srv/shop/src/f${f}.js`);
      for (let l = 1; l <= 25; l++)
        lines.push(
          `  ${l}:5  warning  'unused_${f}_${l}' is assigned a value but never used  no-unused-vars`,
        );
      if (f === 31) lines.push("  26:23  error    'missing_total' is not defined  no-undef");
      lines.push('');
    }
    lines.push('✖ 1501 problems (1 error, 1500 warnings)');
    const { out } = await collapse(lines.join('\n'), { budget: 600 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.text).toContain("  26:23  error    'missing_total' is not defined  no-undef");
    expect(out.text).toContain('/srv/shop/src/f31.js');
  });

  it('go test -v: keeps what a failing test logged, not the verdicts of the passing ones', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 800; i++) {
      lines.push(`=== RUN   TestCase${i}`);
      if (i === 400) {
        lines.push('    gt_test.go:409: total of order 400 = 6, want 7');
        lines.push('    gt_test.go:412: total of order 400 is even: 6');
        lines.push(`--- FAIL: TestCase${i} (0.00s)`);
      } else lines.push(`--- PASS: TestCase${i} (0.00s)`);
    }
    lines.push('FAIL', 'FAIL\texample.com/gt\t0.010s', 'FAIL');
    const { out } = await collapse(lines.join('\n'), { budget: 500 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.text).toContain(lines.slice(801, 804).join('\n'));
  });

  it(".NET: keeps the program's frames between the framework's", async () => {
    const own = [
      '   at Shop.Cart.PriceOf(List`1 items, Int32 i) in /src/Shop/Cart.cs:line 12',
      '   at Shop.Cart.Total(List`1 items, Int32 n) in /src/Shop/Cart.cs:line 18',
      '   at Shop.Orders.Ship(Order order) in /src/Shop/Orders.cs:line 40',
    ];
    const trace = [
      'fail: Shop.Orders[0] order 2000 failed',
      'System.ArgumentOutOfRangeException: Index was out of range. (Parameter index)',
      '   at System.ThrowHelper.ThrowArgumentOutOfRange_IndexMustBeLessException()',
      '   at System.Collections.Generic.List`1.get_Item(Int32 index)',
      '   at System.Linq.Enumerable.Select[TSource,TResult](IEnumerable`1 source)',
      '   at System.Linq.Enumerable.Sum(IEnumerable`1 source)',
      ...own,
      '   at Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke(HttpContext httpContext)',
      '   at Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.ProcessRequests()',
      '   at Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol.ProcessRequestsAsync()',
    ];
    const { out } = await collapse(amidServedOrders(trace, 2000, 'info: '), { budget: 500 });
    if (out.action !== 'acted') throw new Error('expected to act');
    for (const line of own) expect(out.text).toContain(line);
  });

  it('gives a trace seen many times room twice, and a different trace among them its own', async () => {
    const traceback = (file: string, error: string) => [
      'Traceback (most recent call last):',
      ...['run', 'handle', 'load', 'parse', 'step', 'check'].flatMap((fn, i) => [
        `  File "/app/${file}", line ${10 * i + 7}, in ${fn}`,
        `    ${fn}_next(job)`,
      ]),
      error,
    ];
    const info = (from: number) =>
      Array.from({ length: 50 }, (_, k) => `INFO job ${from + k} done in ${k % 9} ms`);
    const timeout = traceback('worker.py', 'TimeoutError: job timed out');
    const other = traceback('billing.py', 'ValueError: amount must be positive');
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) lines.push(...info(i * 50), ...(i === 20 ? other : timeout));
    lines.push(...info(2000));
    const { out } = await collapse(lines.join('\n'), { budget: 1000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    for (const frame of other.filter((line) => line.includes('billing.py')).slice(0, 3))
      expect(out.text).toContain(frame);
  });

  it('folds a run of lines that differ only in numbers into one marker, and spends the budget elsewhere first', async () => {
    const lines = [
      'npm install',
      ...Array.from({ length: 3000 }, (_, i) => `added package-${i}@1.${i}.0 in ${i % 50}ms`),
      ...Array.from(
        { length: 400 },
        (_, i) => `building page /docs/section-${i}/index.html (${(i * 7) % 31} kB) with template default`,
      ),
      'done in 41.2s',
    ];
    const { out } = await collapse(lines.join('\n'), { budget: 1500 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1500);
    expect(o200k.count(out.text)).toBeGreaterThanOrEqual(1350);
    expect(out.text).toMatch(/\(lines \d+-\d+ (?:of 3403 )?omitted: \d+ more like the line above/);
    // Both kinds of line are seen, and how it ended.
    expect(out.text).toContain('added package-0@1.0.0');
    expect(out.text).toContain('building page /docs/section-399/index.html');
    expect(out.text.endsWith('done in 41.2s')).toBe(true);
  });

  it('compacts JSON by structure: every key, first and last items, the odd item out, counts', async () => {
    const items = Array.from({ length: 800 }, (_, i) => ({
      id: i,
      sku: `SKU-${i}`,
      status: 'shipped',
      qty: i % 9,
    }));
    items[417] = { id: 417, sku: 'SKU-417', status: 'payment_failed: card declined', qty: 1 };
    const answer = JSON.stringify({ page: 1, total: 800, next: null, orders: items }, null, 2);
    const { out } = await collapse(answer, { budget: 2000 });
    if (out.action !== 'acted') throw new Error('expected to act');
    expect(out.window).toBe('json');
    const tokens = o200k.count(out.text);
    expect(tokens).toBeLessThanOrEqual(2000);
    expect(tokens).toBeGreaterThanOrEqual(1800);
    const [header, body] = out.text.split('\n') as [string, string];
    expect(header).toMatch(/^\[JSON compacted: \d+ array items left out; full output: spillway_expand <<sw:/);
    const parsed = JSON.parse(body) as { page: number; total: number; next: null; orders: unknown[] };
    expect(Object.keys(parsed)).toEqual(['page', 'total', 'next', 'orders']);
    expect(parsed.orders[0]).toEqual(items[0]);
    expect(parsed.orders.at(-1)).toEqual(items[799]);
    expect(parsed.orders).toContainEqual(items[417]);
    expect(
      parsed.orders.some((o) => typeof o === 'string' && /^… \d+ more items like these …$/.test(o)),
    ).toBe(true);
  });

  it('JSON nested deeper than 128 levels is cut by a text window (compacting it would overflow the stack)', async () => {
    for (const depth of [129, 20_000]) {
      const deep = `${'['.repeat(depth)}${'"x",'.repeat(3000)}"x"${']'.repeat(depth)}`;
      const { out, store } = await collapse(deep, { budget: 500 });
      if (out.action !== 'acted') throw new Error(`expected to act at depth ${depth}`);
      expect(out.window).not.toBe('json');
      expect(o200k.count(out.text)).toBeLessThanOrEqual(500);
      expect((await recallAll(out.id as string, { store })).toString()).toBe(deep);
    }
    const { out } = await collapse(`${'['.repeat(128)}${'"x",'.repeat(3000)}"x"${']'.repeat(128)}`, {
      budget: 500,
    });
    expect(out).toMatchObject({ action: 'acted', window: 'json' });
  });

  it('property: results a few percent over the budget are brought within it, never left over', async () => {
    const packages = [
      'numpy',
      'torch',
      'pandas',
      'requests',
      'urllib3',
      'idna',
      'certifi',
      'pyyaml',
      'jinja2',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 2000 }),
        fc.integer({ min: 0, max: 6 }),
        fc.nat(1000),
        async (budget, over, seed) => {
          const lines = ['Resolved 87 packages in 1.21s', 'Installed 87 packages in 212ms'];
          for (let i = seed; o200k.count(lines.join('\n')) < budget * (1 + over / 100); i++)
            lines.push(
              ` + ${packages[i % packages.length]}${i % 5 ? '' : '-extra'}==${i % 9}.${(i * 7) % 13}.${i % 4}`,
            );
          const text = lines.join('\n');
          const { out } = await collapse(text, { budget });
          if (out.action === 'declined') expect(out.reason).toBe('below_max_tokens');
          else {
            expect(o200k.count(out.text)).toBeLessThanOrEqual(budget);
            expect(Buffer.byteLength(out.text)).toBeLessThan(Buffer.byteLength(text));
          }
          // With the stash failing, the budget holds all the same.
          const unsaved = await collapseText(
            text,
            { budget },
            { tokenizer: o200k, id: () => stashId(text), stash: () => Promise.reject(new Error('full')) },
          );
          if (unsaved.action === 'acted') expect(o200k.count(unsaved.text)).toBeLessThanOrEqual(budget);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('counts how it acted: a character window on one long line is a char_window event', async () => {
    const { stats } = await runOne(collapseStage({ maxTokens: 300 }), 'word '.repeat(20_000));
    expect(stats?.events).toEqual({ char_window: 1 });
    const lines = await runOne(collapseStage({ maxTokens: 300 }), logLines(2000));
    expect(lines.stats?.events).toEqual({ line_window: 1 });
  });

  it('a character window reads a bounded part of a 4 MB line, not the line (20 MB of one letter took 25 s)', async () => {
    // Characters the tokenizer is handed, a count up to a limit reading at most the limit's worth.
    const reading = () => {
      let read = 0;
      const tokenizer: Tokenizer = {
        name: o200k.name,
        count: (text) => {
          read += text.length;
          return o200k.count(text);
        },
        countUpTo: (text, limit) => {
          read += Math.min(text.length, (limit + 1) * MAX_TOKEN_BYTES);
          return o200k.countUpTo(text, limit);
        },
      };
      return { tokenizer, read: () => read };
    };
    for (const unit of ['a', 'word ', '\u4e2d']) {
      const small = reading();
      const large = reading();
      const a = await collapse(unit.repeat(1e6 / unit.length), { budget: 300 }, small.tokenizer);
      const b = await collapse(unit.repeat(4e6 / unit.length), { budget: 300 }, large.tokenizer);
      expect(a.out.action).toBe('acted');
      expect(o200k.count(a.out.action === 'acted' ? a.out.text : '')).toBeLessThanOrEqual(300);
      expect(o200k.count(b.out.action === 'acted' ? b.out.text : '')).toBeLessThanOrEqual(300);
      // Before: the whole line, once or more. Now a bounded bisection, a few steps more at most.
      expect(large.read(), unit).toBeLessThan(4e6 / 10);
      expect(large.read(), unit).toBeLessThan(small.read() * 3);
    }
  });

  it('shortens several text blocks each in its place, fields kept, never merged', async () => {
    const content = [
      { type: 'text', text: logLines(3000) },
      { type: 'text', text: 'exit code 1', cache_control: { type: 'ephemeral' } },
    ];
    const { content: out } = await runOne(collapseStage({ maxTokens: 1000 }), content);
    const blocks = out as { type: string; text: string }[];
    expect(blocks).toHaveLength(2);
    expect(blocks[1]).toEqual(content[1]);
    expect(o200k.count(blocks[0]?.text as string) + o200k.count('exit code 1')).toBeLessThanOrEqual(1000);
  });

  it('shrinks the text beside a screenshot and keeps the image where it was', async () => {
    const image = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo='.repeat(500) },
    };
    const page = logLines(4000);
    const content = [{ type: 'text', text: 'Page snapshot:' }, image, { type: 'text', text: page }];
    const { content: out, outcome, ctx } = await runOne(collapseStage({ maxTokens: 2000 }), content);
    expect(outcome?.actedBy).toEqual(['collapse']);
    const blocks = out as { type: string; text?: string }[];
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toEqual(content[0]);
    expect(blocks[1]).toEqual(image);
    const text = blocks[2]?.text as string;
    expect(o200k.count('Page snapshot:') + o200k.count(text)).toBeLessThanOrEqual(2000);
    expect(o200k.count(text)).toBeGreaterThan(1800);
    const [id] = markerIds(text);
    expect((await recallAll(id as string, { store: ctx.store })).toString()).toBe(page);
  });

  it('one-line JSON of 3,006 to 4,491 tokens at maxTokens 3000 is cut, not left whole', async () => {
    for (const items of [60, 70, 80, 90]) {
      const json = jsonLine(items);
      const tokens = o200k.count(json);
      if (tokens <= 3000) continue;
      expect(tokens).toBeLessThanOrEqual(4600);
      const { out } = await collapse(json, { budget: 3000 });
      expect(out.action, `${tokens} tokens`).toBe('acted');
      if (out.action !== 'acted') continue;
      expect(out.window).toBe('char');
      expect(o200k.count(out.text)).toBeLessThanOrEqual(3000);
      expect(o200k.count(out.text)).toBeGreaterThan(2900);
    }
  });

  it('a multi-megabyte line inside the kept head is cut inside the line, not kept whole', async () => {
    const text = `${'x'.repeat(3 * 1024 * 1024)}\n${logLines(100)}`;
    const { out } = await collapse(text, { budget: 2000 });
    expect(out.action).toBe('acted');
    if (out.action !== 'acted') return;
    // Not a 189-byte saving: the result is within budget.
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(Buffer.byteLength(out.text)).toBeLessThan(20_000);
  });

  it('maxTokens 0 and 50 still leave the 200-character floor as a cue', async () => {
    const text = jsonLine(200);
    for (const maxTokens of [0, 50]) {
      const { out } = await collapse(text, { budget: maxTokens });
      expect(out.action).toBe('acted');
      if (out.action !== 'acted') continue;
      const kept = out.text.replace(
        /\n\.\.\. \(\d+ characters omitted; full output: spillway_expand <<sw:[\w-]+>>\) \.\.\.\n/,
        '',
      );
      expect(kept.length).toBe(CHAR_FLOOR);
      expect(text.startsWith(kept.slice(0, 100))).toBe(true);
    }
  });

  it('headLines and tailLines 0 give the character window with an even split', async () => {
    const log = logLines(2000);
    const { out } = await collapse(log, { budget: 500, headLines: 0, tailLines: 0 });
    expect(out).toMatchObject({ action: 'acted', window: 'char' });
    if (out.action !== 'acted') return;
    const [head, tail] = out.text.split(/\n\.\.\. \(\d+ characters omitted;.*\.\.\.\n/) as [string, string];
    expect(Math.abs(head.length - tail.length)).toBeLessThanOrEqual(1);
    expect(log.startsWith(head)).toBe(true);
    expect(log.endsWith(tail)).toBe(true);
  });

  it('negative line counts are clamped to 0', async () => {
    const log = logLines(500);
    const negative = await collapse(log, { budget: 300, headLines: -5, tailLines: -1 });
    const zero = await collapse(log, { budget: 300, headLines: 0, tailLines: 0 });
    expect(negative.out).toEqual(zero.out);
  });

  it('declines an expand output, and content under budget', async () => {
    const log = logLines(2000);
    expect((await collapse(log, { budget: 300, isExpandOutput: true })).out).toEqual({
      action: 'declined',
      reason: 'kept_verbatim_after_expand',
    });
    expect((await collapse('small', { budget: 300 })).out).toEqual({
      action: 'declined',
      reason: 'below_max_tokens',
    });
    expect((await collapse('word '.repeat(39), { budget: 10 })).out).toEqual({
      action: 'declined',
      reason: 'too_few_lines_and_chars',
    });
  });

  it('at maxTokens 100: at most 100 tokens, and at least 90 on inputs over 2,000 characters', async () => {
    for (const text of [
      logLines(300),
      jsonLine(300),
      'a'.repeat(50_000),
      `${'中文'.repeat(2000)}`,
      `${' '.repeat(30_000)}end`,
    ]) {
      const { out } = await collapse(text, { budget: 100 });
      expect(out.action).toBe('acted');
      if (out.action !== 'acted') continue;
      const n = o200k.count(out.text);
      expect(n, text.slice(0, 20)).toBeLessThanOrEqual(100);
      expect(n, text.slice(0, 20)).toBeGreaterThanOrEqual(90);
    }
  });

  it('when the stash fails, keeps the lines that matter, names nothing to recall and says so', async () => {
    const lines = logLines(3000).split('\n');
    lines[1500] = 'ERROR payment-service: card declined for order 7731';
    const log = lines.join('\n');
    const failing = {
      tokenizer: o200k,
      id: () => stashId(log),
      stash: async () => Promise.reject(new Error('disk full')),
    };
    for (const budget of [60, 500, 2000]) {
      const out = await collapseText(log, { budget }, failing);
      expect(out).toMatchObject({ action: 'acted', fallback: 'stash_failed', stashError: 'disk full' });
      if (out.action !== 'acted') return;
      expect(out.text).toContain('could not be saved and cannot be recalled');
      expect(out.text).not.toMatch(/<<sw:|spillway_expand/);
      expect(o200k.count(out.text), `budget ${budget}`).toBeLessThanOrEqual(budget);
      if (budget >= 500) {
        expect(out.window).toBe('line');
        expect(out.text).toContain(lines[1500]);
        expect(out.text).toMatch(/\.\.\. \(lines \d+-\d+ of 3000 omitted[:)]/);
      }
    }
  });

  it('as a stage, sends a result whole when its original cannot be stashed: nothing cut that cannot be recalled', async () => {
    const full = testContext({ store: new MemoryStore({ maxFileBytes: 1000 }) });
    const log = logLines(3000);
    const text = await runOne(collapseStage({ maxTokens: 500 }), log, full);
    expect(text.content).toBe(log);
    expect(text.stats?.declined).toEqual({ stash_failed: 1 });
    const blocks = [
      { type: 'text' as const, text: log },
      { type: 'text' as const, text: logLines(2000) },
    ];
    const both = await runOne(collapseStage({ maxTokens: 500 }), blocks, full);
    expect(both.content).toEqual(blocks);
    expect(both.stats?.declined).toEqual({ stash_failed: 1 });
  });

  it('writes the stash of a large text while it chooses the window, and returns once it is written', async () => {
    const log = logLines(3000);
    expect(log.length).toBeGreaterThan(64 * 1024);
    let asked = false;
    let countsWhileWriting = 0;
    let written: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      written = resolve;
    });
    const tokenizer = {
      ...o200k,
      count: (s: string) => {
        if (asked) countsWhileWriting++;
        return o200k.count(s);
      },
      countUpTo: (s: string, limit: number) => {
        if (asked) countsWhileWriting++;
        return o200k.countUpTo(s, limit);
      },
    };
    let done = false;
    const out = collapseText(
      log,
      { budget: 500 },
      {
        tokenizer,
        id: () => stashId(log),
        stash: () => {
          asked = true;
          return gate;
        },
      },
    ).then((o) => {
      done = true;
      return o;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    // The window was measured while the write was under way.
    expect(countsWhileWriting).toBeGreaterThan(0);
    written();
    expect(await out).toMatchObject({ action: 'acted', id: stashId(log) });
  });

  it('uses maxFrac of the model window when the window is known', async () => {
    const stage = collapseStage({ maxFrac: 0.001, maxTokens: 5000 });
    const { content } = await runOne(stage, logLines(3000), testContext({ modelWindow: 200_000 }));
    expect(o200k.count(content as string)).toBeLessThanOrEqual(200);
    const unknown = await runOne(stage, logLines(3000), testContext());
    expect(o200k.count(unknown.content as string)).toBeGreaterThan(200);
  });

  it('names the file path in the marker for the file store', async () => {
    const { FileStore } = await import('../../store/backends/file-store.js');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const store = new FileStore({
      base: join(mkdtempSync(join(tmpdir(), 'sw-col-')), 'tr'),
      pruneOnFirstSpill: false,
    });
    const { content } = await runOne(
      collapseStage({ maxTokens: 300 }),
      logLines(2000),
      testContext({ store }),
    );
    const id = markerIds(content as string)[0] as string;
    expect(content).toContain(` or ${store.pathOf({ dir: 'pruned', name: id })}`);
    // At a budget too small to name the path beside the content, the marker drops the path.
    const tight = await runOne(
      collapseStage({ maxTokens: 80, headLines: 0, tailLines: 0 }),
      logLines(2000),
      testContext({ store }),
    );
    expect(tight.content).not.toContain(store.base);
    expect(o200k.count(tight.content as string)).toBeLessThanOrEqual(80);
  });
});

describe('collapse properties', () => {
  const texts = fc.oneof(
    fc.integer({ min: 1, max: 400 }).map(logLines),
    fc.integer({ min: 1, max: 200 }).map(jsonLine),
    fc.string({ unit: 'grapheme', minLength: 0, maxLength: 6000 }),
    fc
      .array(fc.constantFrom('error: ', 'ok\n', '😀', ' ', '{"a":1}', 'Ünïcödé ', '\t', '0123456789'), {
        maxLength: 3000,
      })
      .map((a) => a.join('')),
  );

  for (const name of ['o200k', 'heuristic']) {
    it(`never exceeds maxTokens (${name}) once over budget and above the floor; stash exact; deterministic; idempotent`, async () => {
      const tokenizer = getTokenizer(name);
      await fc.assert(
        fc.asyncProperty(
          texts,
          fc.integer({ min: 60, max: 3000 }),
          fc.integer({ min: -3, max: 30 }),
          fc.integer({ min: -3, max: 30 }),
          async (text, maxTokens, headLines, tailLines) => {
            const options = { budget: maxTokens, headLines, tailLines };
            const { out, store } = await collapse(text, options, tokenizer);
            if (out.action === 'declined') {
              if (out.reason === 'below_max_tokens')
                expect(tokenizer.count(text)).toBeLessThanOrEqual(maxTokens);
              return;
            }
            // The floor binds only when the budget leaves under 50 characters beside the marker.
            if (maxTokens >= 120) expect(tokenizer.count(out.text)).toBeLessThanOrEqual(maxTokens);
            expect(Buffer.byteLength(out.text)).toBeLessThan(Buffer.byteLength(text));
            expect((await recallAll(out.id as string, { store })).toString()).toBe(text);
            expect((await collapse(text, options, tokenizer)).out).toEqual(out);
            // Its own output is within budget: collapsing it again changes nothing.
            if (maxTokens >= 120)
              expect((await collapse(out.text, options, tokenizer)).out).toEqual({
                action: 'declined',
                reason: 'below_max_tokens',
              });
          },
        ),
        { numRuns: name === 'o200k' ? 60 : 150 },
      );
    });
  }
});
