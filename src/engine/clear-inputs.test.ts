import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { trickyString } from '../test-support/arbitraries.js';
import { INPUT_CLEARED_PREFIX, markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import type { ToolCallInput } from '../text/tool-call.js';
import {
  commitClear,
  MIN_CLEAR_CHARS,
  planClear,
  replayClearedInputs,
  restoreInput,
} from './clear-inputs.js';
import { FrozenDecisions } from './frozen.js';

const count = (text: string) => getTokenizer('o200k').count(text);
const call = (text: string, freeform = false, tool = 'Write'): ToolCallInput => ({
  id: 'toolu_01',
  tool,
  position: 3,
  text,
  freeform,
});
/** A file's worth of code, different for every seed. */
const file = (seed: number, lines = 200) =>
  Array.from({ length: lines }, (_, i) => `export const value_${seed}_${i} = compute(${i * seed});`).join(
    '\n',
  );
function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('expected a value');
  return value;
}
const recallFrom = (store: MemoryStore) => async (id: string) =>
  (await recallAll(id, { store })).toString('utf8');

describe("clearing an old call's large arguments", () => {
  it("replaces the large strings only: the path, the call's shape and small fields stay, and it stays valid JSON", async () => {
    const input = { file_path: '/repo/src/big.ts', content: file(1), mode: 'overwrite', backup: false };
    const planned = planClear(call(JSON.stringify(input)), count);
    expect(planned).toBeDefined();
    const cleared = JSON.parse(planned?.text ?? '');
    expect(Object.keys(cleared)).toEqual(['file_path', 'content', 'mode', 'backup']);
    expect(cleared.file_path).toBe('/repo/src/big.ts');
    expect(cleared.backup).toBe(false);
    expect(cleared.content).toMatch(
      /^\[tool input cleared: Write content, \d+ tokens; spillway_expand id \S+ recalls it\] <<sw:/,
    );
    expect(planned?.saved).toBeGreaterThan(count(input.content) - 60);
    const store = new MemoryStore();
    await commitClear(store, undefined, call(JSON.stringify(input)), must(planned));
    const [id] = markerIds(cleared.content);
    expect(await recallFrom(store)(id as string)).toBe(input.content);
  });

  it('keeps a `__proto__` key a key', () => {
    const text = `{"__proto__":{"x":1},"content":${JSON.stringify(file(9))}}`;
    const cleared = planClear(call(text), count)?.text ?? '';
    expect(cleared.startsWith('{"__proto__":{"x":1},"content":"[tool input cleared:')).toBe(true);
  });

  it('names nested fields by their path (MultiEdit edits) and leaves arrays arrays', () => {
    const input = { file_path: 'a.ts', edits: [{ old_string: 'x', new_string: file(2) }] };
    const cleared = JSON.parse(planClear(call(JSON.stringify(input), false, 'MultiEdit'), count)?.text ?? '');
    expect(cleared.edits[0].old_string).toBe('x');
    expect(cleared.edits[0].new_string).toContain('MultiEdit edits[0].new_string');
  });

  it('leaves calls alone that have nothing large, are cleared already, or are not JSON', () => {
    expect(planClear(call(JSON.stringify({ command: 'npm test' })), count)).toBeUndefined();
    // Long in characters, few tokens: a marker would save next to nothing.
    expect(
      planClear(call(JSON.stringify({ content: ' '.repeat(4 * MIN_CLEAR_CHARS) })), count),
    ).toBeUndefined();
    const once = planClear(call(JSON.stringify({ content: file(3) })), count);
    expect(planClear(call(once?.text ?? ''), count)).toBeUndefined();
    expect(planClear(call(`not json ${file(4)}`), count)).toBeUndefined();
    // A large string that only starts like a marker (a forged one) is cleared like any other.
    const forged = `${JSON.parse(once?.text ?? '{}').content}\n${file(8)}`;
    expect(forged.startsWith(INPUT_CLEARED_PREFIX)).toBe(true);
    expect(planClear(call(JSON.stringify({ content: forged })), count)).toBeDefined();
    expect(planClear(call(JSON.stringify([file(5)])), count)).toBeUndefined();
  });

  it('clears a freeform input (apply_patch) whole, and recalls its exact text', async () => {
    const patch = `*** Begin Patch\n*** Add File: a.ts\n${file(6).replace(/^/gm, '+')}\n*** End Patch`;
    const planned = planClear(call(patch, true, 'apply_patch'), count);
    expect(planned?.text.startsWith(INPUT_CLEARED_PREFIX)).toBe(true);
    const store = new MemoryStore();
    await commitClear(store, undefined, call(patch, true), must(planned));
    expect(await restoreInput(planned?.text ?? '', true, recallFrom(store))).toBe(patch);
  });

  it('any arguments: valid JSON of the same shape, nothing over the marker size left large, every string recalled exactly; the same input clears the same way', async () => {
    const big = fc
      .tuple(fc.integer({ min: 0, max: 1000 }), trickyString(30))
      .map(([seed, s]) => `${s}${file(seed, 40)}${s}`);
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        trickyString(20),
        big,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 4 }), async (input) => {
        const text = JSON.stringify(input);
        const planned = planClear(call(text), count);
        expect(planClear(call(text), count)?.text).toBe(planned?.text);
        if (!planned) return;
        const cleared = JSON.parse(planned.text);
        expect(typeof cleared).toBe('object');
        expect(Array.isArray(cleared)).toBe(false);
        const strings = (v: unknown): string[] =>
          typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];
        for (const s of strings(cleared))
          expect(
            s.startsWith(INPUT_CLEARED_PREFIX) ||
              s.length < MIN_CLEAR_CHARS ||
              count(s) < 256 ||
              !s.isWellFormed(),
          ).toBe(true);
        const store = new MemoryStore();
        await commitClear(store, undefined, call(text), planned);
        expect(await restoreInput(planned.text, false, recallFrom(store))).toBe(
          JSON.stringify(JSON.parse(text)),
        );
      }),
      { numRuns: 60 },
    );
  });

  it("keeps the client's bytes: big integers, 1.50, a key given twice, escapes and spacing reach the model as written; only the large strings change", async () => {
    const big = fc
      .tuple(fc.integer({ min: 0, max: 1000 }), fc.constantFrom('', '\ud800', 'é\n"'))
      .map(([seed, tail]) => JSON.stringify(`${file(seed, 40)}${tail}`));
    const space = fc.constantFrom('', ' ', '\n  ', '\t');
    const scalar = fc.oneof(
      fc.bigInt({ min: 10n ** 19n, max: 10n ** 25n }).map(String),
      fc.constantFrom('1.50', '-0.0', '1e400', '1E+2', 'true', 'null', '"\\u00e9\\/x"', '"\\ud800"'),
      trickyString(10).map((s) => JSON.stringify(s)),
      big,
    );
    const key = fc.constantFrom('"content"', '"n"', '"dup"', '"__proto__"', '"\\u0063ontent"');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc
          .tuple(fc.array(tie('node'), { maxLength: 3 }), space)
          .map(([items, s]) => `[${s}${items.join(`,${s}`)}]`),
        tie('object'),
      ),
      object: fc
        .tuple(fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }), space)
        .map(([members, s]) => `{${s}${members.map(([k, v]) => `${k}${s}:${v}`).join(`,${s}`)}${s}}`),
    }));
    let cleared = 0;
    await fc.assert(
      fc.asyncProperty(value.object, async (text) => {
        JSON.parse(text);
        const planned = planClear(call(text), count);
        if (!planned) return;
        cleared++;
        expect(() => JSON.parse(planned.text)).not.toThrow();
        for (const small of ['1.50', '1e400', '\\u00e9\\/x', '"\\ud800"', '\\u0063ontent'])
          expect(planned.text.split(small).length).toBe(text.split(small).length);
        const store = new MemoryStore();
        await commitClear(store, undefined, call(text), planned);
        // Every character but the cleared strings' is the client's: putting them back gives the text.
        expect(await restoreInput(planned.text, false, recallFrom(store))).toBe(text);
      }),
      { numRuns: 120 },
    );
    expect(cleared).toBeGreaterThan(20);
  });

  it('is frozen: a later turn, or another engine after a restart, replays the same bytes', async () => {
    const store = new MemoryStore();
    const text = JSON.stringify({ file_path: 'a.ts', content: file(7) });
    const frozen = new FrozenDecisions(store, 'sess-inputs');
    const planned = planClear(call(text), count);
    await commitClear(store, frozen, call(text), must(planned));
    await frozen.flush();
    const later = new FrozenDecisions(store, 'sess-inputs');
    const small = call(JSON.stringify({ command: 'ls' }));
    const replayed = await replayClearedInputs(later, [small, call(text), call(`${text} `)]);
    // By the call's id and the exact arguments: other arguments under the same id are not it.
    expect([...replayed]).toEqual([[1, planned?.text]]);
  });
});
