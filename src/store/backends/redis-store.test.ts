import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteStoreContract } from '../../test-support/byte-store-contract.js';
import { REDIS_MISSING, REDIS_SERVER, startRedis, type TestRedis } from '../../test-support/redis.js';
import { storeContract } from '../../test-support/store-contract.js';
import { RedisStore } from './redis-store.js';

let redis: TestRedis | undefined;
const stores: RedisStore[] = [];
let n = 0;

// .ci/run starts a redis-server for the tests and names it here; otherwise one of our own.
const shared = process.env.SPILLWAY_TEST_REDIS_URL || undefined;
let url = shared ?? '';

beforeAll(async () => {
  if (!shared && REDIS_SERVER) {
    redis = await startRedis();
    url = redis.url;
  }
});
afterAll(async () => {
  for (const s of stores) await s.close();
  await redis?.stop();
});

if (shared || REDIS_SERVER) {
  // A fresh key prefix per store: the same Redis, isolated like a fresh directory.
  const open = async (limits = {}) => {
    const store = await RedisStore.connect(url, { ...limits, prefix: `t${process.pid}_${n++}` });
    stores.push(store);
    return store;
  };
  storeContract('RedisStore', open);
  byteStoreContract('RedisBytes', async () => (await open()).bytes);

  describe('RedisStore', () => {
    it('fails clearly at start when Redis is not there', async () => {
      await expect(RedisStore.connect('redis://127.0.0.1:1/0', { connectTimeoutMs: 500 })).rejects.toThrow(
        /cannot connect to Redis at redis:\/\/127\.0\.0\.1:1\/0: .*is redis-server running there\?/,
      );
    });

    it('expires stash entries one by one and whole sessions after the keep age', async () => {
      const store = await RedisStore.connect(url, {
        prefix: `exp${process.pid}_${n++}`,
        keepAgeMs: 300,
      });
      stores.push(store);
      await store.put({ dir: 'pruned', name: 'old' }, Buffer.from('stash'));
      await store.put({ dir: 's', name: 'a' }, Buffer.from('one'));
      await new Promise((r) => setTimeout(r, 200));
      await store.put({ dir: 's', name: 'b' }, Buffer.from('two'));
      await new Promise((r) => setTimeout(r, 200));
      // 400 ms after "old" and "a", 200 ms after "b": the stash entry is gone, the session lives on whole.
      expect(await store.get({ dir: 'pruned', name: 'old' })).toBeNull();
      expect((await store.get({ dir: 's', name: 'a' }))?.toString()).toBe('one');
      await new Promise((r) => setTimeout(r, 250));
      await store.put({ dir: 'other', name: 'x' }, Buffer.from('x'));
      expect(await store.get({ dir: 's', name: 'b' })).toBeNull();
      expect((await store.list()).map((d) => d.name)).toEqual(['other']);
    });

    it('makes room over the total by removing the oldest idle sessions, never the active ones', async () => {
      const store = await RedisStore.connect(url, {
        prefix: `tot${process.pid}_${n++}`,
        maxTotalBytes: 100,
        activeAgeMs: 100,
      });
      stores.push(store);
      await store.put({ dir: 'old', name: 'a' }, Buffer.alloc(60));
      await new Promise((r) => setTimeout(r, 150));
      await store.put({ dir: 'new', name: 'a' }, Buffer.alloc(30));
      await store.put({ dir: 'newer', name: 'a' }, Buffer.alloc(50));
      expect(await store.get({ dir: 'old', name: 'a' })).toBeNull();
      await expect(store.put({ dir: 'newest', name: 'a' }, Buffer.alloc(50))).rejects.toThrow(
        /total quota of 100 bytes/,
      );
    });

    it('lists a store whose stash holds 200,000 entries', async () => {
      const prefix = `big${process.pid}_${n++}`;
      const store = await RedisStore.connect(url, { prefix });
      stores.push(store);
      await store.put({ dir: 'pruned', name: 'newest' }, Buffer.from('x'));
      const raw = createClient({ url });
      await raw.connect();
      try {
        for (let at = 0; at < 200_000; at += 10_000) {
          const members = Array.from({ length: 10_000 }, (_, i) => ({ score: 1, value: `e${at + i}` }));
          await raw.zAdd(`${prefix}:n:pruned`, members);
        }
      } finally {
        await raw.quit();
      }
      const [stash] = await store.list();
      expect(stash?.name).toBe('pruned');
      // The newest of 200,001 entries: the one put, not the 200,000 added at time 1.
      expect(stash?.mtimeMs).toBe((await store.stat({ dir: 'pruned', name: 'newest' }))?.mtimeMs);
    });

    it('keeps the store total equal to the sum of every session usage, and recounts it once it expires', async () => {
      const raw = createClient({ url });
      await raw.connect();
      try {
        const sum = async (prefix: string) =>
          Object.values(await raw.hGetAll(`${prefix}:use`)).reduce((a, v) => a + Number(v), 0);
        const write = fc.record({
          kind: fc.constantFrom('put', 'append', 'delete'),
          dir: fc.constantFrom('a', 'b', 'pruned'),
          name: fc.constantFrom('x', 'y'),
          size: fc.integer({ min: 0, max: 60 }),
        });
        await fc.assert(
          fc.asyncProperty(fc.array(write, { maxLength: 20 }), async (ops) => {
            const prefix = `sum${process.pid}_${n++}`;
            // A small total and no session counted as active, so that writes also make room by
            // removing other sessions and stash entries.
            const store = await RedisStore.connect(url, {
              prefix,
              maxTotalBytes: 150,
              maxSessionBytes: 100,
              activeAgeMs: 0,
            });
            try {
              for (const o of ops) {
                const key = { dir: o.dir, name: o.name };
                const body = Buffer.alloc(o.size, 'v');
                const done =
                  o.kind === 'delete'
                    ? store.delete(key)
                    : o.kind === 'put'
                      ? store.put(key, body)
                      : store.append(key, body);
                await done.catch((e) => expect(e.code).toBe('SPILLWAY_QUOTA'));
              }
              // Absent only while nothing was ever counted.
              const total = await raw.get(`${prefix}:total`);
              expect(Number(total ?? 0)).toBe(await sum(prefix));
            } finally {
              await store.close();
            }
          }),
          { numRuns: 25 },
        );
        // A total some other writer left wrong holds only until it expires; then it is summed again.
        const prefix = `stale${process.pid}_${n++}`;
        const store = await RedisStore.connect(url, { prefix, maxTotalBytes: 100 });
        stores.push(store);
        await store.put({ dir: 's', name: 'a' }, Buffer.alloc(40));
        await raw.set(`${prefix}:total`, '1000', { PX: 50 });
        await new Promise((r) => setTimeout(r, 80));
        await store.put({ dir: 's', name: 'b' }, Buffer.alloc(40));
        expect(Number(await raw.get(`${prefix}:total`))).toBe(80);
        expect(await sum(prefix)).toBe(80);
      } finally {
        await raw.quit();
      }
    });
  });
} else {
  describe('RedisStore', () => it.skip(REDIS_MISSING, () => {}));
}
