import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteStoreContract } from '../../test-support/byte-store-contract.js';
import {
  REDIS_CLUSTER_MISSING,
  REDIS_CLUSTER_TOOLS,
  startCluster,
  type TestCluster,
} from '../../test-support/redis-cluster.js';
import { storeContract } from '../../test-support/store-contract.js';
import { STASH_DIR } from '../ids.js';
import { clusterKeys, keySlot } from './redis-cluster-keys.js';
import { RedisClusterStore, type RedisClusterStoreOptions } from './redis-cluster-store.js';

let cluster: TestCluster | undefined;
const stores: RedisClusterStore[] = [];
let n = 0;

async function open(options: RedisClusterStoreOptions = {}): Promise<RedisClusterStore> {
  if (!cluster) throw new Error('no cluster');
  const store = await RedisClusterStore.connect(cluster.url, {
    prefix: `c${process.pid}_${n++}`,
    ...options,
  });
  stores.push(store);
  return store;
}

function cli(port: number, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();
}

/** Every key under a prefix on every live master, with its size: what the cluster really holds. */
function bodiesOnMasters(prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  if (!cluster) return out;
  for (const port of cluster.ports) {
    if (!/role:master/.test(cli(port, 'info', 'replication'))) continue;
    for (const key of cli(port, '--scan', '--pattern', `{${prefix}:*`).split('\n').filter(Boolean))
      if (/\}:b/.test(key)) out.set(key, Number(cli(port, 'strlen', key)));
  }
  return out;
}

beforeAll(async () => {
  if (REDIS_CLUSTER_TOOLS) cluster = await startCluster({ masters: 3, replicas: 1 });
}, 60_000);
afterAll(async () => {
  for (const s of stores) await s.close();
  await cluster?.stop();
});

if (REDIS_CLUSTER_TOOLS) {
  storeContract('RedisClusterStore', (limits) => open(limits));
  byteStoreContract('RedisClusterBytes', async () => (await open()).bytes);

  describe('RedisClusterStore', () => {
    it('hashes keys to the slots the cluster does, hash tags included', () => {
      const port = cluster?.ports[0] ?? 0;
      const keys = fc.sample(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 12 }),
          fc
            .tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 6 }), fc.string({ maxLength: 4 }))
            .map(([a, b, c]) => `${a}{${b}}${c}`),
        ),
        60,
      );
      const safe = keys.filter((k) => !/[\s"'\\]/.test(k) && !k.startsWith('-'));
      for (const key of safe) expect(keySlot(key), key).toBe(Number(cli(port, 'cluster', 'keyslot', key)));
    });

    it('spreads sessions and stash entries over the shards, each session on one slot', async () => {
      const store = await open();
      const keys = clusterKeys(`c${process.pid}_${n - 1}`);
      for (let i = 0; i < 30; i++) {
        await store.put({ dir: `s${i}`, name: 'a' }, Buffer.from('one'));
        await store.put({ dir: `s${i}`, name: 'b' }, Buffer.from('two'));
        await store.put({ dir: STASH_DIR, name: `x${i}` }, Buffer.from('three'));
      }
      const masters = new Set<number>();
      for (let i = 0; i < 30; i++) {
        const a = keySlot(keys.body({ dir: `s${i}`, name: 'a' }));
        expect(keySlot(keys.body({ dir: `s${i}`, name: 'b' }))).toBe(a);
        expect(keySlot(keys.names(`s${i}`))).toBe(a);
        masters.add(cluster?.masterOf(a) ?? 0);
        masters.add(cluster?.masterOf(keySlot(keys.body({ dir: STASH_DIR, name: `x${i}` }))) ?? 0);
      }
      expect(masters.size).toBe(3);
    });

    it('keeps one total for the whole cluster: what every shard holds stays under it', async () => {
      const prefix = `c${process.pid}_${n}`;
      const store = await open({ maxTotalBytes: 20_000, activeAgeMs: 0 });
      for (let i = 0; i < 10; i++) await store.put({ dir: `idle${i}`, name: 'a' }, Buffer.alloc(500, 'i'));
      for (let i = 0; i < 100; i++)
        await store.put({ dir: STASH_DIR, name: `s${i}` }, Buffer.alloc(1000, i % 256));
      const held = bodiesOnMasters(prefix);
      const bytes = [...held.values()].reduce((a, b) => a + b, 0);
      expect(bytes).toBeLessThanOrEqual(20_000);
      expect(bytes).toBeGreaterThan(15_000);
      // The ledger agrees with the shards, and the newest entries are the ones kept.
      const listed = (await store.list()).reduce((a, d) => a + d.bytes, 0);
      expect(listed).toBe(bytes);
      expect((await store.get({ dir: STASH_DIR, name: 's99' }))?.length).toBe(1000);
      // Idle sessions went first, and their bodies with them, whichever shard held them.
      expect([...held.keys()].some((k) => k.includes(':s:idle'))).toBe(false);
    });

    it('holds concurrent writers of two stores to one total', async () => {
      const a = await open({ maxTotalBytes: 10_000 });
      const b = await RedisClusterStore.connect(cluster?.url ?? '', {
        prefix: `c${process.pid}_${n - 1}`,
        maxTotalBytes: 10_000,
      });
      stores.push(b);
      const writes = Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).put({ dir: `w${i}`, name: 'a' }, Buffer.alloc(400)).then(
          () => 1,
          () => 0,
        ),
      );
      const stored = (await Promise.all(writes)).reduce<number>((x, y) => x + y, 0);
      expect(stored).toBe(25);
      expect((await a.list()).reduce((x, d) => x + d.bytes, 0)).toBe(10_000);
    });

    it('reports the bytes it holds, what its listing adds up to (the dashboard shows it against the quota)', async () => {
      const store = await open();
      await store.put({ dir: 'u', name: 'a' }, Buffer.alloc(700));
      await store.append({ dir: 'u', name: 'fz_log' }, Buffer.alloc(50));
      await store.put({ dir: STASH_DIR, name: 'x' }, Buffer.alloc(300));
      await store.delete({ dir: 'u', name: 'a' });
      expect(await store.usedBytes()).toBe(350);
      expect((await store.list()).reduce((a, d) => a + d.bytes, 0)).toBe(350);
    });

    it('counts a stash entry once when proxies race to write it', async () => {
      const a = await open();
      const b = await RedisClusterStore.connect(cluster?.url ?? '', { prefix: `c${process.pid}_${n - 1}` });
      stores.push(b);
      const body = Buffer.alloc(1000, 'r');
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).putIfAbsent({ dir: STASH_DIR, name: 'same' }, body),
        ),
      );
      expect(won.filter(Boolean).length).toBe(1);
      expect(await a.usedBytes()).toBe(1000);
      expect((await b.get({ dir: STASH_DIR, name: 'same' }))?.equals(body)).toBe(true);
    });

    it('names a cluster it cannot reach', async () => {
      await expect(
        RedisClusterStore.connect('redis-cluster://:secret@127.0.0.1:1', { connectTimeoutMs: 500 }),
      ).rejects.toThrow(
        /cannot connect to the Redis Cluster at redis-cluster:\/\/:\*\*\*@127\.0\.0\.1:1: .*cluster-enabled yes/,
      );
    });
  });
} else {
  describe('RedisClusterStore', () => it.skip(REDIS_CLUSTER_MISSING, () => {}));
}
