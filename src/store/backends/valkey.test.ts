import { afterAll, beforeAll, describe, it } from 'vitest';
import { byteStoreContract } from '../../test-support/byte-store-contract.js';
import { startRedis, type TestRedis, VALKEY_MISSING, VALKEY_SERVER } from '../../test-support/redis.js';
import { startCluster, type TestCluster } from '../../test-support/redis-cluster.js';
import { storeContract } from '../../test-support/store-contract.js';
import type { Store } from '../store.js';
import { RedisClusterStore } from './redis-cluster-store.js';
import { RedisStore } from './redis-store.js';

// Valkey, the Linux Foundation's fork of Redis, as a server for both stores: one server, and a
// cluster of three masters with a replica each.
let server: TestRedis | undefined;
let cluster: TestCluster | undefined;
const stores: Store[] = [];
let n = 0;

beforeAll(async () => {
  if (!VALKEY_SERVER) return;
  server = await startRedis({ server: 'valkey-server' });
  cluster = await startCluster({ server: 'valkey-server', cli: 'valkey-cli', masters: 3, replicas: 1 });
}, 60_000);
afterAll(async () => {
  for (const s of stores) await s.close?.();
  await server?.stop();
  await cluster?.stop();
});

const kept = <T extends Store>(store: T): T => {
  stores.push(store);
  return store;
};

if (VALKEY_SERVER) {
  storeContract('RedisStore on Valkey', async (limits) =>
    kept(await RedisStore.connect(server?.url ?? '', { ...limits, prefix: `v${process.pid}_${n++}` })),
  );
  storeContract('RedisClusterStore on a Valkey cluster', async (limits) =>
    kept(
      await RedisClusterStore.connect(cluster?.url ?? '', { ...limits, prefix: `vc${process.pid}_${n++}` }),
    ),
  );
  byteStoreContract(
    'Redis on Valkey',
    async () =>
      kept(await RedisStore.connect(server?.url ?? '', { prefix: `vb${process.pid}_${n++}` })).bytes,
  );
} else {
  describe('Valkey', () => it.skip(VALKEY_MISSING, () => {}));
}
