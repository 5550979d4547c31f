import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_MISSING, REDIS_SERVER, startRedis, type TestRedis } from '../test-support/redis.js';
import { storeContract } from '../test-support/store-contract.js';
import { RedisStore } from './redis-store.js';

let redis: TestRedis | undefined;
const stores: RedisStore[] = [];
let n = 0;

// .ci/run starts a redis-server for the tests and names it here; otherwise one of our own.
const shared = process.env.SPILLWAY_TEST_REDIS_URL;
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
  storeContract('RedisStore', async (limits) => {
    const store = await RedisStore.connect(url, { ...limits, prefix: `t${process.pid}_${n++}` });
    stores.push(store);
    return store;
  });

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
  });
} else {
  describe('RedisStore', () => it.skip(REDIS_MISSING, () => {}));
}
