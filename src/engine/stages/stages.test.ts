import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { recallAll } from '../../store/recall/recall.js';
import type { Store } from '../../store/store.js';
import { result, runOne, testContext } from '../../test-support/stages.js';
import { contentBytes } from '../../text/blocks.js';
import { originalOf } from '../../text/content-hash.js';
import { markerIds } from '../../text/markers.js';
import { resolveEngineConfig } from '../config.js';
import { runStages } from '../runner.js';
import type { Stage, StageItem } from '../types.js';
import { dedupStage } from './dedup.js';
import { compactJson, formatStage } from './format.js';
import { isProtectedLine, linecapStage, longLines } from './linecap.js';
import { maskStage } from './mask.js';
import { perItem } from './per-item.js';
import { cleanTerminal, textcleanStage } from './textclean.js';

const cleanText = (text: string) => cleanTerminal(text).text;

describe('textclean', () => {
  it('removes ANSI escapes and keeps the last frame of \\r redraws', async () => {
    expect(cleanText('\x1b[1;32mPASS\x1b[0m tests\n')).toBe('PASS tests\n');
    expect(cleanText('\x1b]0;title\x07after')).toBe('after');
    expect(cleanText('progress 10%\rprogress 50%\rprogress 100%\ndone')).toBe('progress 100%\ndone');
    expect(cleanText('spinner /\r\rfinal\r')).toBe('final\r');
    expect(cleanText('windows\r\nlines\r\n')).toBe('windows\r\nlines\r\n');
    const { content, outcome } = await runOne(textcleanStage(), '\x1b[31merror\x1b[0m: x');
    expect(content).toBe('error: x');
    expect(outcome?.actedBy).toEqual(['textclean']);
    expect((await runOne(textcleanStage(), 'plain')).outcome?.trail).toEqual([
      { stage: 'textclean', outcome: 'nothing_to_clean' },
    ]);
  });
});

/** Every line resolved one by one, as textclean did before it learnt to skip CRLF text. */
function resolveEveryLine(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const crlf = line.endsWith('\r');
      const body = crlf ? line.slice(0, -1) : line;
      const frames = body.split('\r');
      let last = frames.length - 1;
      while (last > 0 && frames[last] === '') last--;
      return (frames[last] as string) + (crlf ? '\r' : '');
    })
    .join('\n');
}

describe('textclean on carriage returns', () => {
  it('property: skipping text whose every \\r ends a line changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '\r', '\n', ' ') }), (text) => {
        expect(cleanText(text)).toBe(resolveEveryLine(text));
      }),
      { numRuns: 2000 },
    );
  });
});

// The regex the escapes were once removed with in one pass; the search from ESC to ESC must agree.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

describe('textclean on escapes', () => {
  it('property: the same text as one regex pass and line by line resolution, and the exact bytes removed', () => {
    const unit = fc.constantFrom(
      '\x1b',
      '[',
      ']',
      '0',
      '1',
      ';',
      'm',
      'K',
      '\x07',
      '\\',
      '\r',
      '\n',
      'a',
      'é',
      '😀',
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (text) => {
        const clean = cleanTerminal(text);
        expect(clean.text).toBe(resolveEveryLine(text.replace(ANSI, '')));
        expect(clean.removedBytes).toBe(Buffer.byteLength(text) - Buffer.byteLength(clean.text));
      }),
      { numRuns: 3000 },
    );
  });
});

/** A stage after the one under test, recording the size the runner holds for each result. */
function sizeProbe(seen: number[]): Stage {
  return {
    name: 'format',
    lossy: false,
    pure: true,
    run: perItem((item) => {
      seen.push(item.bytes());
      return { action: 'declined', reason: 'not_json' };
    }),
  };
}

describe('stages that know the size of what they kept', () => {
  it('textclean hands the runner the exact size, for text and for blocks', async () => {
    const seen: number[] = [];
    const text = '\x1b]8;;https://é.example\x07link\x1b]8;;\x07 \x1b[31mrød\x1b[0m\r\n50%\r100%\n';
    const blocks = [{ type: 'text' as const, text }];
    const run = await runStages(
      [result(text), result(blocks)],
      [textcleanStage(), sizeProbe(seen)],
      testContext(),
    );
    expect(run.results.map((r) => r.content)).toEqual([
      'link rød\r\n100%\n',
      [{ type: 'text', text: 'link rød\r\n100%\n' }],
    ]);
    expect(seen).toEqual(run.results.map((r) => contentBytes(r.content)));
  });

  it('property: linecap hands the runner the exact size of the text it cut', async () => {
    let acted = 0;
    // ASCII or not; lines short and long, so what is cut is sometimes more and sometimes less
    // than what stays.
    const line = (units: readonly string[]) =>
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...units), maxLength: 100, size: 'max' }),
        fc.string({ unit: fc.constantFrom(...units), minLength: 101, maxLength: 600, size: 'max' }),
      );
    const lines = fc
      .constantFrom(['a', ' '], ['a', 'é', '😀', ' '])
      .chain((units) => fc.array(line(units), { minLength: 1, maxLength: 8 }));
    await fc.assert(
      fc.asyncProperty(lines, fc.boolean(), async (lines, asBlocks) => {
        const seen: number[] = [];
        const text = lines.join('\n');
        const content = asBlocks ? [{ type: 'text' as const, text }] : text;
        const stages = [linecapStage({ maxLineChars: 100, headChars: 10, tailChars: 5 }), sizeProbe(seen)];
        const run = await runStages([result(content)], stages, testContext());
        expect(seen).toEqual([contentBytes(run.results[0]?.content ?? '')]);
        if (run.outcomes[0]?.status === 'changed') acted++;
      }),
      { numRuns: 300 },
    );
    // Most runs cut a line: the size came from the stage, not from measuring.
    expect(acted).toBeGreaterThan(100);
  });
});

describe('format', () => {
  it('compacts pretty JSON exactly, keeping numbers, escapes and duplicate keys as written', async () => {
    const pretty =
      '{\n  "big": 12345678901234567890,\n  "f": 1.50,\n  "s": "a \\" b\\n  c",\n  "d": 1,\n  "d": 2,\n  "list": [ 1 , 2 ]\n}';
    expect(compactJson(pretty)).toBe(
      '{"big":12345678901234567890,"f":1.50,"s":"a \\" b\\n  c","d":1,"d":2,"list":[1,2]}',
    );
    const { content } = await runOne(formatStage(), pretty);
    expect(content).toBe(compactJson(pretty));
  });

  it('property: compacting any JSON printed with any indentation gives JSON.stringify of its value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 2, '\t', ' \r\n '), (value, indent) => {
        const printed = JSON.stringify(value, null, indent);
        expect(compactJson(printed)).toBe(JSON.stringify(value));
        // Text around a string's quotes and backslashes: what a jump to the next quote must get right.
        const tricky = ` [ "a\\\\" , "\\" \\\\ " , ${printed} ] `;
        expect(compactJson(tricky)).toBe(`["a\\\\","\\" \\\\ ",${JSON.stringify(value)}]`);
      }),
      { numRuns: 300 },
    );
  });

  it('a text with nothing to take out is declined without being parsed; invalid JSON is never compacted', async () => {
    // [1 2] is not JSON, though [12] would be.
    expect((await runOne(formatStage(), '[1 2]')).outcome?.trail[0]?.outcome).toBe('not_json');
    expect((await runOne(formatStage(), '\n {"a": 1}\n')).content).toBe('{"a":1}');
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
      parsed++;
      return parse(...args);
    };
    try {
      expect((await runOne(formatStage(), '{"a":"b c"}')).outcome?.trail[0]?.outcome).toBe('already_compact');
    } finally {
      JSON.parse = parse;
    }
    expect(parsed).toBe(0);
  });

  it('leaves text that is not one whole JSON value, and JSON already compact', async () => {
    expect((await runOne(formatStage(), 'prefix {"a": 1}')).outcome?.trail[0]?.outcome).toBe('not_json');
    expect((await runOne(formatStage(), '{"a": 1, oops}')).outcome?.trail[0]?.outcome).toBe('not_json');
    expect((await runOne(formatStage(), '{"a":1}')).outcome?.trail[0]?.outcome).toBe('already_compact');
    expect((await runOne(formatStage(), [{ type: 'image', source: {} }])).outcome?.trail[0]?.outcome).toBe(
      'non_text_blocks',
    );
  });
});

describe('dedup', () => {
  it('turns a repeat of an earlier result into a pointer with a recall id', async () => {
    const big = 'same listing\n'.repeat(100);
    const ctx = testContext();
    const run = await runStages(
      [
        result(big, { id: 'call_a', tool: 'Read', position: 1 }),
        result('other', { id: 'call_b', position: 3 }),
        result(big, { id: 'call_c', tool: 'Read', position: 5 }),
      ],
      [dedupStage()],
      ctx,
    );
    expect(run.results[0]?.content).toBe(big);
    const pointer = run.results[2]?.content as string;
    expect(pointer).toMatch(
      /^\[same output as tool call call_a \(Read\); spillway_expand id [\w-]{22} recalls it\] <<sw:[\w-]{22}>>$/,
    );
    expect((await recallAll(markerIds(pointer)[0] as string, { store: ctx.store })).toString()).toBe(big);
    expect(run.stats.dedup?.declined).toEqual({ no_earlier_duplicate: 1, below_min_size: 1 });
  });

  it('leaves small repeats alone', async () => {
    const run = await runStages(
      [result('ok', { id: 'a' }), result('ok', { id: 'b', position: 1 })],
      [dedupStage()],
      testContext(),
    );
    expect(run.results.map((r) => r.content)).toEqual(['ok', 'ok']);
  });
});

describe('linecap', () => {
  it('property: finds the same long lines as splitting the text into lines', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', '😀', '\n', '\r'),
      maxLength: 300,
      size: 'max',
    });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (t, max) => {
        const expected: [number, number][] = [];
        let start = 0;
        for (const line of t.split('\n')) {
          if (line.length > max) expected.push([start, start + line.length]);
          start += line.length + 1;
        }
        expect(longLines(t, max)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('cuts long lines around a recallable marker and keeps short ones', async () => {
    const long = 'x'.repeat(10_000);
    const text = `short line\n${long}\nend`;
    const ctx = testContext();
    const { content } = await runOne(
      linecapStage({ maxLineChars: 2000, headChars: 100, tailChars: 50 }),
      text,
      ctx,
    );
    const lines = (content as string).split('\n');
    expect(lines[0]).toBe('short line');
    expect(lines[2]).toBe('end');
    expect(lines[1]).toMatch(
      /^x{100} \.\.\. \(9850 characters of this line cut; spillway_expand <<sw:[\w-]+>>\) \.\.\. x{50}$/,
    );
    expect(
      (await recallAll(markerIds(content as string)[0] as string, { store: ctx.store })).toString(),
    ).toBe(text);
  });

  it('returns its marker only once the original is stored, and is reverted when the stash fails', async () => {
    const text = `short line\n${'x'.repeat(10_000)}\nend`;
    // A store whose writes finish only when the test says, then succeed or fail.
    const gated = (outcome: 'stored' | 'failed') => {
      const store = new MemoryStore();
      const put = store.putIfAbsent.bind(store);
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      store.putIfAbsent = async (key, body) => {
        await gate;
        if (outcome === 'failed') throw new Error('disk full');
        return put(key, body);
      };
      return { store, open };
    };
    const slow = gated('stored');
    let done = false;
    const run = runOne(linecapStage(), text, testContext({ store: slow.store })).then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    slow.open();
    const { content } = await run;
    const id = markerIds(content as string)[0] as string;
    expect((await recallAll(id, { store: slow.store })).toString()).toBe(text);

    const failing = gated('failed');
    const reverted = runOne(linecapStage(), text, testContext({ store: failing.store }));
    failing.open();
    const { content: kept, outcome } = await reverted;
    expect(kept).toBe(text);
    expect(outcome?.trail[0]?.outcome).toMatch(/^reverted/);
  });

  it('never cuts paths with line numbers, stack frames, errors, verdicts, diff headers or URLs', () => {
    const tail = ` ${'y'.repeat(3000)}`;
    for (const line of [
      `src/app/server.ts:42:7${tail}`,
      `C:\\work\\main.py:10${tail}`,
      `    at Object.<anonymous> (/srv/app/index.js:12:5)`,
      `  File "/usr/lib/python3/x.py", line 12, in f${tail}`,
      `  --> src/main.rs:4:9${tail}`,
      `TypeError: cannot read properties of undefined${tail}`,
      `error[E0308]: mismatched types${tail}`,
      `FAIL src/x.test.ts${tail}`,
      // What the signal table names, in any family: a Ruby frame, a pino error, a pod's state.
      `app/models/order.rb:12:in 'Order#total'${tail}`,
      `{"level":50,"msg":"database unavailable"${tail}`,
      `api-7d9c4-xk2p   0/1     CrashLoopBackOff   12 (3m ago)   30m${tail}`,
      `npm ERR! code ERESOLVE${tail}`,
      `diff --git a/x b/x${tail}`,
      `@@ -1,3 +1,4 @@${tail}`,
      `https://example.com/${'a'.repeat(3000)}`,
    ]) {
      expect(isProtectedLine(line), line.slice(0, 40)).toBe(true);
    }
  });

  it('leaves a JSON document to a collapse that follows, which keeps its odd item out; cuts it otherwise', async () => {
    const items = Array.from({ length: 5000 }, (_, i) =>
      i === 2500 ? { id: i, status: 'failed', error: { message: 'card declined' } } : { id: i, status: 'ok' },
    );
    const json = JSON.stringify({ orders: items });
    const balanced = resolveEngineConfig();
    const run = await runStages([result(json)], balanced.stages, testContext());
    expect(run.outcomes[0]?.actedBy).toEqual(['collapse']);
    expect(run.outcomes[0]?.trail).toContainEqual({ stage: 'linecap', outcome: 'json_left_to_collapse' });
    expect(run.results[0]?.content as string).toContain('card declined');
    // Without a collapse after it, or past what collapse compacts as JSON, or on JSON Lines (no
    // one document), linecap cuts.
    const lines = `${json}\n${json}`;
    const jsonl = await runStages([result(lines)], balanced.stages, testContext());
    expect(jsonl.outcomes[0]?.actedBy[0]).toBe('linecap');
    const alone = resolveEngineConfig({ stages: ['linecap'] });
    expect((await runStages([result(json)], alone.stages, testContext())).outcomes[0]?.actedBy).toEqual([
      'linecap',
    ]);
    const huge = JSON.stringify({
      orders: Array.from({ length: 160_000 }, (_, i) => ({ id: i, status: 'ok' })),
    });
    expect(huge.length).toBeGreaterThan(4 * 1024 * 1024);
    const hugeRun = await runStages([result(huge)], balanced.stages, testContext());
    expect(hugeRun.outcomes[0]?.actedBy[0]).toBe('linecap');
    // Nested deeper than collapse compacts: linecap cuts it (it used to be left to a collapse
    // that then threw, and went out whole).
    const deep = `${'['.repeat(50_000)}1${']'.repeat(50_000)}`;
    const deepRun = await runStages([result(deep)], balanced.stages, testContext());
    expect(deepRun.outcomes[0]?.actedBy[0]).toBe('linecap');
    expect(String(deepRun.results[0]?.content).length).toBeLessThan(2000);
  });

  it('does not mistake a long line of JSON for a path with a line number', async () => {
    const json = `{"items":[{"id":1,"name":"${'n'.repeat(5000)}"}]}`;
    expect(isProtectedLine(json)).toBe(false);
    expect(isProtectedLine(`id:12 ${'z'.repeat(3000)}`)).toBe(false);
    const { outcome } = await runOne(linecapStage(), json);
    expect(outcome?.actedBy).toEqual(['linecap']);
  });

  it('declines when no line is long, or when every long line is protected', async () => {
    expect((await runOne(linecapStage(), 'a\nb')).outcome?.trail[0]?.outcome).toBe('no_long_lines');
    expect((await runOne(linecapStage(), `Error: ${'e'.repeat(5000)}`)).outcome?.trail[0]?.outcome).toBe(
      'only_protected_lines',
    );
  });
});

describe('mask', () => {
  const results = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      result(`output of call ${i} `.repeat(200), { id: `call_${i}`, position: i, tool: 'Bash' }),
    );

  it('masks old results only when a full batch is waiting, then all of them at once', async () => {
    const ctx = testContext();
    const stage = maskStage({ keepRecent: 3, batch: 4 });
    const few = await runStages(results(6), [stage], ctx);
    expect(few.outcomes.filter((o) => o.status === 'changed')).toHaveLength(0);
    expect(few.stats.mask?.declined).toEqual({ recent: 3, batch_not_full: 3 });
    const full = await runStages(results(7), [stage], ctx);
    const masked = full.results.filter((r) => (r.content as string).startsWith('[older tool result masked:'));
    expect(masked.map((r) => r.id)).toEqual(['call_0', 'call_1', 'call_2', 'call_3']);
    expect(masked[0]?.content).toMatch(
      /^\[older tool result masked: Bash call call_0, \d+ tokens; spillway_expand id [\w-]+ recalls it\] <<sw:[\w-]+>>$/,
    );
    const id = markerIds(masked[0]?.content as string)[0] as string;
    expect((await recallAll(id, { store: ctx.store })).toString()).toBe('output of call 0 '.repeat(200));
  });

  it('never masks a result too small to matter, and an error output only after the larger ones', async () => {
    const ctx = testContext();
    const stage = maskStage({ keepRecent: 3, batch: 4 });
    const run = await runStages(
      [
        result('exit code 1: cannot find module x', {
          id: 'small',
          position: 0,
          tool: 'Bash',
          isError: true,
        }),
        ...[1, 2, 3, 4, 5, 6].map((i) =>
          result(`output of call ${i} `.repeat(200), { id: `call_${i}`, position: i, tool: 'Bash' }),
        ),
      ],
      [stage],
      ctx,
    );
    expect(run.outcomes.filter((o) => o.status === 'changed').map((o) => o.id)).toEqual([
      'call_1',
      'call_2',
      'call_3',
    ]);
    expect(run.stats.mask?.declined).toMatchObject({ too_small: 1 });
  });

  it("asks for a batch's originals together, and a stash that fails reverts only its own result", async () => {
    const ctx = testContext();
    const store: Store = ctx.store;
    const batches: number[] = [];
    store.putAllIfAbsent = async (entries) => {
      batches.push(entries.length);
      throw new Error('the batch was refused');
    };
    const refused = originalOf('output of call 1 '.repeat(200)).id();
    const putIfAbsent = store.putIfAbsent.bind(store);
    store.putIfAbsent = async (key, body) => {
      if (key.name === refused) throw new Error('no room for this one');
      return putIfAbsent(key, body);
    };
    const run = await runStages(results(7), [maskStage({ keepRecent: 3, batch: 4 })], ctx);
    expect(batches).toEqual([4]);
    expect(run.outcomes.filter((o) => o.status === 'changed').map((o) => o.id)).toEqual([
      'call_0',
      'call_2',
      'call_3',
    ]);
    expect(run.stats.mask?.reverted).toEqual({ threw: 1 });
    expect(run.results[1]?.content).toBe('output of call 1 '.repeat(200));
  });
});

describe('stage item plumbing', () => {
  it('stashes the original once however many stages ask', async () => {
    const ctx = testContext();
    let puts = 0;
    const store = ctx.store;
    const counting = {
      ...store,
      kind: store.kind,
      limits: store.limits,
      putIfAbsent: async (k: Parameters<typeof store.putIfAbsent>[0], b: Uint8Array) => {
        puts++;
        return store.putIfAbsent(k, b);
      },
    } as typeof store;
    const twice = {
      name: 'linecap' as const,
      lossy: true,
      pure: false,
      run: async (items: readonly StageItem[]) => {
        const ids = [];
        for (const item of items) ids.push(await item.stashOriginal(), await item.stashOriginal());
        return items.map(() => ({ action: 'declined' as const, reason: 'no_long_lines' as const }));
      },
    };
    await runStages([result('x')], [twice], { ...ctx, store: counting });
    expect(puts).toBe(1);
  });
});
