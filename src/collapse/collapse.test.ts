import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { stashKey } from '../store/ids.js';
import { expand } from '../store/recall/expand.js';
import { buildLog } from '../test-support/build-log.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { collapse } from './collapse.js';

const o200k = getTokenizer('o200k');

describe('collapse (the root export)', () => {
  it('keeps the error of a 650 KB build log within budget, and the whole comes back exactly', async () => {
    const { text, error } = buildLog();
    expect(text.length).toBeGreaterThan(650_000);
    const store = new MemoryStore();
    const out = await collapse(text, { tokens: 2000, store });
    expect(out.collapsed).toBe(true);
    if (!out.collapsed) return;
    expect(o200k.count(out.text)).toBeLessThanOrEqual(2000);
    expect(out.text).toContain(error);
    expect(out.text).toContain(`<<sw:${out.id}>>`);
    expect((await store.get(stashKey(out.id)))?.toString('utf8')).toBe(text);
    expect(await expand(store, { id: out.id, grep: 'undeclared' })).toContain(error);
  });

  it('gives a text within budget back as it is, and stashes nothing', async () => {
    const store = new MemoryStore();
    expect(await collapse('ok\n', { tokens: 10, store })).toEqual({ collapsed: false, text: 'ok\n' });
    expect(await store.list()).toEqual([]);
  });

  it('refuses a budget below one token, and cuts nothing it could not stash', async () => {
    const store = new MemoryStore();
    await expect(collapse('x', { tokens: 0, store })).rejects.toMatchObject({ code: 'SPILLWAY_BAD_INPUT' });
    const full = new MemoryStore({ maxFileBytes: 1000 });
    await expect(collapse(buildLog().text, { tokens: 500, store: full })).rejects.toMatchObject({
      code: 'SPILLWAY_IO',
    });
  });

  it('property: never over budget; what it cut is stashed byte for byte', async () => {
    const line = fc.oneof(
      fc.constantFrom(
        'ok',
        'error: disk full',
        'Traceback (most recent call last):',
        '',
        '  at f (a.js:1:2)',
      ),
      fc.string({ maxLength: 120 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 400 }),
        fc.integer({ min: 20, max: 600 }),
        async (lines, tokens) => {
          const text = lines.join('\n');
          const store = new MemoryStore();
          const out = await collapse(text, { tokens, store });
          expect(o200k.count(out.text)).toBeLessThanOrEqual(
            Math.max(tokens, out.collapsed ? 0 : o200k.count(text)),
          );
          if (out.collapsed) expect((await store.get(stashKey(out.id)))?.toString('utf8')).toBe(text);
          else expect(out.text).toBe(text);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('a tight budget', () => {
  it('keeps the one error before the head and tail frames fill the budget (found by the JSON strings property)', async () => {
    const lines = Array.from({ length: 1193 }, (_, i) => `step ${i} ${'x'.repeat(66)}`);
    lines.splice(3, 0, 'src/m1193.c:66:1: error: bad value');
    for (const tokens of [120, 150]) {
      const out = await collapse(lines.join('\n'), { tokens, store: new MemoryStore() });
      expect(out.text).toContain('src/m1193.c:66:1: error: bad value');
      expect(getTokenizer('o200k').count(out.text)).toBeLessThanOrEqual(tokens);
    }
  });
});
