import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { stashKey } from '../store/ids.js';
import { expand } from '../store/recall/expand.js';
import { buildLog } from '../test-support/build-log.js';
import { cli } from '../test-support/cli.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { collapse } from './collapse.js';
import { compactJson } from './json.js';
import { collapseTextString, shareOut } from './json-text.js';

const o200k = getTokenizer('o200k');
const ID = 'sw_0123456789abcdef';
const HEADER = /^\[JSON compacted: [^\n]*; full output: spillway_expand <<sw:([\w-]+)>>(?: or [^\]\n]+)?\]\n/;
const LINE_GAP = /^\.\.\. \((?:lines (\d+)-(\d+)|line (\d+))(?: of \d+)?(?: omitted)[^\n]*\) \.\.\.$/;
const CHAR_GAP = /… \((\d+) characters omitted\) …/g;

const { text: LOG, error: ERROR } = buildLog();
// A compacted body, read by the paths each test knows it has.
// biome-ignore lint/suspicious/noExplicitAny: the tests index parsed JSON by known paths
type Shown = any;
const STDERR = 'make: *** [all] Error 2\n';

/** The body of a compacted result, parsed: it must be valid JSON under a header naming the id. */
function bodyOf(out: string, id?: string): unknown {
  const header = HEADER.exec(out);
  expect(header, 'a header naming the recall id').not.toBeNull();
  if (id) expect(header?.[1]).toBe(id);
  return JSON.parse(out.slice(header?.[0].length));
}

/**
 * Throws unless `shown` is `whole` cut by lines as the line collapse cuts: every line shown is
 * the whole's line at its place, and each marker counts exactly the run it stands for.
 */
function expectLinesCounted(whole: string, shown: string): void {
  const lines = whole.split('\n');
  let at = 0;
  for (const line of shown.split('\n')) {
    const gap = LINE_GAP.exec(line);
    if (gap) {
      const from = Number(gap[1] ?? gap[3]);
      expect(from, 'a marker starts where the shown lines stop').toBe(at + 1);
      at = Number(gap[2] ?? gap[3]);
      continue;
    }
    expect(line, `line ${at + 1}`).toBe(lines[at]);
    at++;
  }
  expect(at, 'every line shown or counted').toBe(lines.length);
}

/** Throws unless `shown` is `whole` with runs of characters cut, each counted exactly. */
function expectCharsCounted(whole: string, shown: string): void {
  const kept = shown.split(CHAR_GAP);
  let at = 0;
  for (let i = 0; i < kept.length; i++) {
    const piece = kept[i] as string;
    if (i % 2 === 1) {
      at += Number(piece);
      continue;
    }
    expect(whole.slice(at, at + piece.length)).toBe(piece);
    at += piece.length;
  }
  expect(at).toBe(whole.length);
}

describe('a long string inside JSON, collapsed as the text it is', () => {
  const shapes: Record<string, { text: string; stdout: (v: Shown) => string }> = {
    compact: {
      text: JSON.stringify({ exitCode: 2, stdout: LOG, stderr: STDERR }),
      stdout: (v) => v.stdout,
    },
    'pretty-printed': {
      text: JSON.stringify({ exitCode: 2, stdout: LOG, stderr: STDERR }, null, 2),
      stdout: (v) => v.stdout,
    },
    nested: {
      text: JSON.stringify({
        tool: 'bash',
        result: { status: 'error', output: { exitCode: 2, stdout: LOG, stderr: STDERR } },
      }),
      stdout: (v) => v.result.output.stdout,
    },
  };
  for (const [name, { text, stdout }] of Object.entries(shapes))
    it(`${name}: the error line in the middle kept, keys and short values shown, 85% of 2,000 tokens used, every line counted, the whole recallable`, async () => {
      const store = new MemoryStore();
      const out = await collapse(text, { tokens: 2000, store });
      expect(out.collapsed).toBe(true);
      if (!out.collapsed) return;
      const tokens = o200k.count(out.text);
      expect(tokens).toBeLessThanOrEqual(2000);
      expect(tokens).toBeGreaterThanOrEqual(2000 * 0.85);
      const value = bodyOf(out.text, out.id) as Shown;
      const shown = stdout(value);
      expect(shown).toContain(ERROR);
      expect(JSON.stringify(value)).toContain('"exitCode":2');
      expect(JSON.stringify(value)).toContain(JSON.stringify(STDERR));
      expectLinesCounted(LOG, shown);
      expect(shown).toContain(`<<sw:${out.id}>>`);
      expect((await store.get(stashKey(out.id)))?.toString('utf8')).toBe(text);
      expect(await expand(store, { id: out.id, grep: 'undeclared' })).toContain('undeclared');
    });

  it('shares the budget among several strings, each keeping its error line', async () => {
    const logs = ['build', 'test', 'lint'].map((step, s) => {
      const lines = Array.from(
        { length: 2000 + s * 1500 },
        (_, i) => `[${step} ${i}] ok ${'.'.repeat(40 + s * 10)}`,
      );
      const error = `${step}.c:${100 + s}:7: error: '${step}_x' undeclared (first use in this function)`;
      lines.splice(Math.floor(lines.length * (0.3 + s * 0.2)), 0, error);
      return { step, text: lines.join('\n'), error };
    });
    const value = Object.fromEntries([...logs.map((l) => [l.step, l.text]), ['exitCode', 1]]);
    const out = await collapse(JSON.stringify(value), { tokens: 2000, store: new MemoryStore() });
    expect(out.collapsed).toBe(true);
    const tokens = o200k.count(out.text);
    expect(tokens).toBeLessThanOrEqual(2000);
    expect(tokens).toBeGreaterThanOrEqual(2000 * 0.85);
    const shown = bodyOf(out.text) as Record<string, string>;
    expect(shown.exitCode).toBe(1);
    for (const log of logs) {
      expect(shown[log.step]).toContain(log.error);
      expectLinesCounted(log.text, shown[log.step] as string);
    }
    // The longest log gets the largest share: more of its lines are shown.
    const shownLines = logs.map((l) => (shown[l.step] as string).split('\n').length);
    expect(shownLines[2]).toBeGreaterThanOrEqual(shownLines[0] as number);
  });

  it('keeps the sentence that matters from the middle of an 800+ character line of a web result', async () => {
    const sentence =
      'The build fails with FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory unless NODE_OPTIONS raises it.';
    const results = Array.from({ length: 12 }, (_, r) => ({
      url: `https://example.com/docs/page-${r}`,
      title: `Page ${r}`,
      content: Array.from({ length: 6 }, (_, p) =>
        Array.from({ length: 14 }, (_, s) =>
          r === 7 && p === 3 && s === 9
            ? sentence
            : `Sentence ${s} of paragraph ${p} on page ${r} says something ordinary about the defaults.`,
        ).join(' '),
      ).join('\n'),
    }));
    const out = await collapse(JSON.stringify({ query: 'heap', results }), {
      tokens: 2000,
      store: new MemoryStore(),
    });
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    const shown = bodyOf(out.text) as { results: (string | { url: string; content: string })[] };
    const page = shown.results.find((r) => typeof r === 'object' && r.url.endsWith('page-7'));
    expect(page).toBeDefined();
    const content = (page as { content: string }).content;
    expect(content).toContain(sentence);
    expect(content.length).toBeLessThan((results[7]?.content.length ?? 0) / 2);
    expectCharsCounted(results[7]?.content ?? '', content);
  });

  it('spillway collapse --tokens 2000 (the hooks’ and the proxy’s collapse) does the same', async () => {
    const text = JSON.stringify({ exitCode: 2, stdout: LOG, stderr: STDERR });
    const r = await cli(['collapse', '--tokens', '2000', '--json'], {
      stdin: text,
      env: { SPILLWAY_HOME: `${process.env.TMPDIR ?? '/tmp'}/json-text-cli-${process.pid}` },
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { window: string; text: string; tokensAfter: number };
    expect(out.window).toBe('json');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(o200k.count(out.text)).toBeGreaterThanOrEqual(2000 * 0.85);
    expect((bodyOf(out.text) as { stdout: string }).stdout).toContain(ERROR);
  });

  it('shows a text that fits its share whole, and shares by weight what the others need', () => {
    expect(shareOut(1000, [1, 1, 2], [100, 5000, 5000])).toEqual([100, 300, 600]);
    expect(shareOut(1000, [1, 1], [10, 20])).toEqual([10, 20]);
    const short = 'a\nb\nc\n'.repeat(100);
    expect(collapseTextString(short, 2000, { tokenizer: o200k, id: ID })).toEqual({
      text: short,
      whole: true,
    });
  });

  it('property: never over budget, valid JSON, and each string’s error line kept when it fits', () => {
    const log = fc
      .record({
        lines: fc.integer({ min: 50, max: 3000 }),
        width: fc.integer({ min: 5, max: 120 }),
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        quote: fc.constantFrom('', '"', '\\', '\t'),
      })
      .map(({ lines, width, at, quote }) => {
        const error = `src/m${lines}.c:${width}:1: error: bad ${quote}value${quote}`;
        const all = Array.from({ length: lines }, (_, i) => `step ${i} ${quote}${'x'.repeat(width)}`);
        all.splice(Math.floor(at * lines), 0, error);
        return { text: all.join('\n'), error };
      });
    const doc = fc.record({
      logs: fc.array(log, { minLength: 1, maxLength: 3 }),
      nest: fc.boolean(),
      extra: fc.array(fc.integer(), { maxLength: 30 }),
    });
    fc.assert(
      fc.property(doc, fc.integer({ min: 600, max: 4000 }), ({ logs, nest, extra }, budget) => {
        const fields = Object.fromEntries(logs.map((l, i) => [`out${i}`, l.text]));
        const value = nest
          ? { result: { exitCode: 1, ...fields }, extra }
          : { exitCode: 1, ...fields, extra };
        const text = JSON.stringify(value);
        const out = compactJson(text, { budget, tokenizer: o200k, id: ID });
        if (!out) return;
        expect(o200k.count(out.text)).toBeLessThanOrEqual(budget);
        const shown = bodyOf(out.text, ID) as Shown;
        const strings = nest ? shown.result : shown;
        // Room for every error line and its markers beside the JSON around them.
        const fits = logs.length * 120 <= budget - 200;
        for (const [i, l] of logs.entries()) {
          const s = strings[`out${i}`];
          if (typeof s !== 'string') continue;
          if (s.includes('… (') && !s.includes('\n')) continue;
          expectLinesCounted(l.text, s);
          if (fits) expect(s).toContain(l.error);
        }
      }),
      { numRuns: 60 },
    );
  });
});
