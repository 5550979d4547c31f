import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBytes } from './backends/memory-store.js';
import { FROZEN_PREFIX, STASH_DIR, type StoreKey } from './ids.js';
import { QuotaStore } from './quota-store.js';

const ACTIVE = 100;
type Op = { dir: string; name: string; size: number; wait: number; names?: string };

const op: fc.Arbitrary<Op> = fc.record({
  dir: fc.constantFrom('a', 'b', 'c', 'd', STASH_DIR),
  name: fc.constantFrom('x', 'y', 'h1', 'h2', `${FROZEN_PREFIX}log`),
  size: fc.integer({ min: 0, max: 120 }),
  wait: fc.constantFrom(0, 0, 10, 150),
  names: fc.option(fc.constantFrom('h1', 'h2'), { nil: undefined }),
});

describe('QuotaStore over any backend', () => {
  it('stays under its total, and making room never removes a live session or a stash entry one names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        let now = 0;
        const limits = { maxFileBytes: 200, maxSessionBytes: 300, maxTotalBytes: 400 };
        const store = new QuotaStore(new MemoryBytes(() => now), {
          limits,
          now: () => now,
          activeAgeMs: ACTIVE,
        });
        const written = new Map<string, StoreKey>();
        const newest = new Map<string, number>();
        for (const o of ops) {
          now += o.wait;
          const key = { dir: o.dir, name: o.name };
          const frozen = o.name.startsWith(FROZEN_PREFIX) && o.dir !== STASH_DIR;
          const body = frozen && o.names ? Buffer.from(`<<sw:${o.names}>>`) : Buffer.alloc(o.size, 'x');
          // Before the write: which sessions are live, and which stash ids their decisions name.
          const live = (dir: string) => dir === o.dir || now - (newest.get(dir) ?? -ACTIVE) < ACTIVE;
          const named = new Set<string>();
          for (const k of written.values())
            if (k.dir !== STASH_DIR && k.name.startsWith(FROZEN_PREFIX) && live(k.dir))
              for (const m of (await store.get(k))?.toString().matchAll(/<<sw:(\w+)>>/g) ?? [])
                named.add(m[1] as string);
          try {
            await store.put(key, body);
            written.set(`${o.dir}/${o.name}`, key);
            if (o.dir !== STASH_DIR) newest.set(o.dir, now);
            expect(await store.get(key)).toEqual(body);
          } catch (err) {
            expect((err as { code?: string }).code).toBe('SPILLWAY_QUOTA');
          }
          expect(await store.usedBytes()).toBeLessThanOrEqual(limits.maxTotalBytes);
          for (const [id, k] of written) {
            if ((await store.get(k)) !== null) continue;
            // Removed to make room: an idle session's entry, or a stash entry no live session names.
            if (k.dir === STASH_DIR) expect(named.has(k.name), `${id} was named`).toBe(false);
            else expect(live(k.dir), `${id} was live`).toBe(false);
            written.delete(id);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
