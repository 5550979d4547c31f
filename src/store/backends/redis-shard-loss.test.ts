import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpillwayError } from '../../errors.js';
import { cli } from '../../test-support/cli.js';
import {
  REDIS_CLUSTER_MISSING,
  REDIS_CLUSTER_TOOLS,
  startCluster,
  type TestCluster,
} from '../../test-support/redis-cluster.js';
import { stashKey } from '../ids.js';
import { recall } from '../recall/recall.js';
import { stash } from '../stash.js';
import { clusterKeys, keySlot } from './redis-cluster-keys.js';
import { RedisClusterStore } from './redis-cluster-store.js';

// A shard gone for good (its master and its replica killed): a recall or a stash on it fails
// within the store's deadline with an error that names the store, instead of hanging; the
// other shards go on.

let cluster: TestCluster | undefined;
const PREFIX = `lost${process.pid}`;

beforeAll(async () => {
  if (REDIS_CLUSTER_TOOLS) cluster = await startCluster({ masters: 3, replicas: 1 });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe.skipIf(!REDIS_CLUSTER_TOOLS)(
  `a Redis Cluster with a shard gone${REDIS_CLUSTER_TOOLS ? '' : ` (skipped: ${REDIS_CLUSTER_MISSING})`}`,
  () => {
    it('fails a recall or a stash on the lost shard within the deadline, naming the store', async () => {
      const c = cluster as TestCluster;
      const before = await RedisClusterStore.connect(c.url, { prefix: PREFIX });
      const ids: string[] = [];
      for (let i = 0; i < 24; i++) ids.push(await stash(before, `output ${i} of a run`));
      await before.close();
      const keys = clusterKeys(PREFIX);
      const slotOf = (id: string) => keySlot(keys.body(stashKey(id)));
      const lostMaster = c.masterOf(slotOf(ids[0] as string));
      const onLost = ids.filter((id) => c.masterOf(slotOf(id)) === lostMaster);
      const elsewhere = ids.filter((id) => c.masterOf(slotOf(id)) !== lostMaster);
      expect(elsewhere.length).toBeGreaterThan(0);
      for (const port of [lostMaster, ...c.replicasOf(lostMaster)]) await c.kill(port);

      const store = await RedisClusterStore.connect(c.url, { prefix: PREFIX, deadlineMs: 2000 });
      try {
        const failed = await recall(onLost[0] as string, { store }).catch((err: unknown) => err);
        expect(SpillwayError.isInstance(failed) && failed.code).toBe('SPILLWAY_IO');
        expect((failed as Error).message).toMatch(
          /Redis Cluster at redis-cluster:\/\/.*(did not answer|CLUSTERDOWN)/,
        );
        const stashed = await stash(store, `a new output ${Date.now()}`).catch((err: unknown) => err);
        if (stashed instanceof Error) expect(stashed.message).toMatch(/did not answer|CLUSTERDOWN|cluster/i);
      } finally {
        await store.close();
      }
      // The CLI with the default deadline: an error and a non-zero exit, not a hang.
      const r = await cli(['expand', onLost[0] as string, '--store', c.url]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Redis Cluster at redis-cluster:\/\/|CLUSTERDOWN/);
    }, 90_000);
  },
);
