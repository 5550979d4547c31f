import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactValue, type Json } from './json.js';

/**
 * The compaction as first written: every item of a long array looked at on every try. The
 * faster one must give the same value and counts.
 */
function reference(value: Json, keep: number, omitted: { items: number; strings: number }): Json {
  const shapeOf = (v: Json) =>
    Array.isArray(v)
      ? 'array'
      : v !== null && typeof v === 'object'
        ? `{${Object.keys(v).sort().join(',')}}`
        : typeof v;
  const errorLike = /error|fail|exception|invalid|denied|refused|timeout|panic|fatal/i;
  const isErrorLike = (v: Json) => {
    if (typeof v === 'string') return errorLike.test(v.slice(0, 400));
    if (v === null || typeof v !== 'object') return false;
    const entries = Array.isArray(v)
      ? v.slice(0, 20).map((x, i) => [String(i), x] as const)
      : Object.entries(v).slice(0, 50);
    return entries.some(
      ([k, x]) => errorLike.test(k) || (typeof x === 'string' && errorLike.test(x.slice(0, 400))),
    );
  };
  if (typeof value === 'string' && value.length > 400) {
    omitted.strings++;
    return `${value.slice(0, 200)}… (${value.length - 400} characters omitted) …${value.slice(-100)}`;
  }
  if (Array.isArray(value)) {
    if (value.length <= keep + 2) return value.map((v) => reference(v, keep, omitted));
    const first = shapeOf(value[0] as Json);
    const out: Json[] = [];
    let skipped = 0;
    let odd = 0;
    value.forEach((item, i) => {
      const keepIt =
        i < keep ||
        i === value.length - 1 ||
        (odd < 4 && (shapeOf(item) !== first || isErrorLike(item)) && ++odd > 0);
      if (!keepIt) {
        skipped++;
        return;
      }
      if (skipped > 0) out.push(`… ${skipped} more items like these …`);
      omitted.items += skipped;
      skipped = 0;
      out.push(reference(item, keep, omitted));
    });
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = reference(v, keep, omitted);
    return out;
  }
  return value;
}

describe('JSON compaction', () => {
  it('property: visiting only the kept items gives what looking at every item gave, at every keep', () => {
    const leaf = fc.oneof(
      fc.integer(),
      fc.constantFrom('ok', 'shipped', 'payment failed', 'x'.repeat(450), null, true),
      fc.record({ id: fc.integer(), status: fc.constantFrom('ok', 'error: declined') }),
      fc.record({ id: fc.integer(), note: fc.constant('odd shape') }),
    );
    const { value } = fc.letrec<{ value: Json }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('value'), { maxLength: 30 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'items'), tie('value'), { maxKeys: 3 }),
      ),
    }));
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 12 }), (v, keep) => {
        const fast = { items: 0, strings: 0, deep: 0 };
        const slow = { items: 0, strings: 0, deep: 0 };
        expect(compactValue(v, keep, fast)).toEqual(reference(v, keep, slow));
        expect(fast).toEqual(slow);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds the odd items out past the first 4,096 of a long array, whatever keep is tried first', () => {
    const items: Json[] = Array.from({ length: 10_000 }, (_, i) => ({ id: i, status: 'ok' }));
    for (const at of [5000, 6000, 7000, 8000, 9000]) items[at] = { id: at, status: 'failed' };
    const cache = new WeakMap<Json[], number[]>();
    for (const keep of [4096, 1, 2048]) {
      const fast = { items: 0, strings: 0, deep: 0 };
      const slow = { items: 0, strings: 0, deep: 0 };
      expect(compactValue(items, keep, fast, cache)).toEqual(reference(items, keep, slow));
      expect(fast).toEqual(slow);
    }
  });
});

describe('a JSON tree too deep for one item of each array', () => {
  // A design tool's node tree over MCP (get_node_tree): ~45 KB on one line, six levels of three
  // children (an array of three is kept whole even at one item an array).
  const node = (depth: number, path: string): Json => ({
    id: `${path}`,
    name: `Frame ${path}`,
    type: depth === 0 ? 'TEXT' : 'FRAME',
    visible: true,
    bounds: { x: depth * 8, y: depth * 16, width: 320, height: 48 },
    ...(depth === 0 ? {} : { children: [0, 1, 2].map((i) => node(depth - 1, `${path}:${i}`)) }),
  });
  const tree = JSON.stringify({ document: node(5, '1') });

  it('keeps its upper levels, every key, valid JSON, at 1,000 and 2,000 tokens', async () => {
    const { getTokenizer } = await import('../../../text/tokenizers/index.js');
    const { compactJson } = await import('./json.js');
    const o200k = getTokenizer('o200k');
    expect(tree.length).toBeGreaterThan(40_000);
    for (const maxTokens of [1000, 2000]) {
      const out = compactJson(tree, { maxTokens, tokenizer: o200k, id: 'sw_0123456789abcdef' });
      expect(out, `at ${maxTokens}`).toBeDefined();
      const [header, body] = (out?.text ?? '').split('\n');
      expect(header).toMatch(/nested values too deep for the budget shown by their size/);
      expect(o200k.count(out?.text ?? '')).toBeLessThanOrEqual(maxTokens);
      const parsed = JSON.parse(body as string) as { document: Record<string, unknown> };
      expect(Object.keys(parsed.document)).toEqual(['id', 'name', 'type', 'visible', 'bounds', 'children']);
    }
  });
});
