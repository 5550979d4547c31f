import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../../errors.js';
import { byteStoreContract } from '../../test-support/byte-store-contract.js';
import { storeContract } from '../../test-support/store-contract.js';
import { STASH_DIR } from '../ids.js';
import { MemoryBytes, MemoryStore } from './memory-store.js';

byteStoreContract('MemoryBytes', async () => new MemoryBytes());
storeContract(
  'MemoryStore',
  async ({ activeAgeMs, ...limits } = {}) => new MemoryStore(limits, Date.now, activeAgeMs),
);

type Op =
  | { kind: 'put' | 'append'; dir: string; name: string; size: number }
  | { kind: 'delete'; dir: string; name: string };

const keyPart = (values: string[]) => fc.constantFrom(...values);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('put' as const, 'append' as const),
    dir: keyPart(['a', 'b', STASH_DIR]),
    name: keyPart(['x', 'y', 'z']),
    size: fc.integer({ min: 0, max: 40 }),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    dir: keyPart(['a', 'b', STASH_DIR]),
    name: keyPart(['x', 'y']),
  }),
);

describe('MemoryStore over its total', () => {
  it('removes the longest idle session before any stash entry, never a live one', async () => {
    let now = 0;
    const store = new MemoryStore({ maxTotalBytes: 100 }, () => now, 1_000);
    const body = (n: number) => Buffer.alloc(n, 'x');
    await store.put({ dir: 'old', name: 'e' }, body(30));
    now = 100;
    await store.put({ dir: 'older', name: 'e' }, body(0));
    await store.put({ dir: STASH_DIR, name: 's1' }, body(30));
    now = 5_000;
    await store.put({ dir: 'live', name: 'e' }, body(30));
    // 10 more than fits: the idle "old" goes (its 30 bytes), the stash and "live" stay.
    await store.put({ dir: 'live', name: 'f' }, body(20));
    expect((await store.list()).map((d) => d.name)).toEqual(['live', 'older', STASH_DIR]);
    // Nothing idle holds enough now: the stash entry goes, the live session never.
    now = 5_500;
    await store.put({ dir: 'new', name: 'e' }, body(40));
    expect(await store.get({ dir: STASH_DIR, name: 's1' })).toBeNull();
    await expect(store.put({ dir: 'new', name: 'f' }, body(40))).rejects.toThrow(/total quota/);
    expect((await store.list()).map((d) => d.name)).toContain('live');
  });
});

describe('MemoryStore usage, kept as entries change', () => {
  it('answers every read and every quota decision as a recount of its entries would', async () => {
    const limits = { maxFileBytes: 64, maxSessionBytes: 100, maxTotalBytes: 1_000_000 };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const store = new MemoryStore(limits);
        const model = new Map<string, Buffer>();
        const usage = (dir: string) =>
          [...model].filter(([k]) => k.startsWith(`${dir}/`)).reduce((n, [, v]) => n + v.length, 0);
        for (const [i, o] of ops.entries()) {
          const key = { dir: o.dir, name: o.name };
          const id = `${o.dir}/${o.name}`;
          if (o.kind === 'delete') {
            expect(await store.delete(key)).toBe(model.delete(id));
            continue;
          }
          const bytes = Buffer.alloc(o.size, 97 + (i % 26));
          const old = model.get(id) ?? Buffer.alloc(0);
          const next =
            o.kind === 'put' ? bytes.subarray(0, limits.maxFileBytes) : Buffer.concat([old, bytes]);
          const fits =
            next.length <= limits.maxFileBytes &&
            (o.dir === STASH_DIR || usage(o.dir) - old.length + next.length <= limits.maxSessionBytes);
          const write = o.kind === 'put' ? store.put(key, bytes) : store.append(key, bytes);
          if (fits) {
            await write;
            model.set(id, next);
          } else
            await expect(write).rejects.toSatisfy(
              (e) => SpillwayError.isInstance(e) && e.code === 'SPILLWAY_QUOTA',
            );
        }
        for (const [id, body] of model) {
          const [dir, name] = id.split('/') as [string, string];
          expect(await store.get({ dir, name })).toEqual(body);
        }
        const dirs = [...new Set([...model.keys()].map((k) => k.split('/')[0] as string))].sort();
        expect((await store.list()).map((d) => [d.name, d.bytes])).toEqual(dirs.map((d) => [d, usage(d)]));
      }),
      { numRuns: 300 },
    );
  });
});
