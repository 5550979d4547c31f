import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { REDIS_MISSING, REDIS_SERVER, startRedis, type TestRedis } from '../test-support/redis.js';
import {
  REDIS_CLUSTER_MISSING,
  REDIS_CLUSTER_TOOLS,
  startCluster,
  type TestCluster,
} from '../test-support/redis-cluster.js';

const output = Array.from({ length: 3000 }, (_, i) => `${i}: row ${i} ✓`).join('\n');

describe.skipIf(!REDIS_SERVER)('--store redis://... (and SPILLWAY_STORE)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('cap, collapse and expand share a Redis store, byte for byte', async () => {
    const capped = await cli(
      ['cap', '--session', 's', '--call', 'c', '--bytes', '500', '--store', redis.url, '--json'],
      { stdin: output },
    );
    expect(capped.code, capped.stderr).toBe(0);
    expect(JSON.parse(capped.stdout)).toMatchObject({ capped: true, id: 's/c', path: null });
    expect(
      (await cli(['expand', 's/c', '--all', '--store', redis.url])).raw.equals(Buffer.from(output)),
    ).toBe(true);
    const collapsed = JSON.parse(
      (
        await cli(['collapse', '--tokens', '200', '--json'], {
          stdin: output,
          env: { SPILLWAY_STORE: redis.url },
        })
      ).stdout,
    );
    expect(collapsed.action).toBe('acted');
    expect(
      (await cli(['expand', collapsed.id, '--all'], { env: { SPILLWAY_STORE: redis.url } })).stdout,
    ).toBe(output);
  });

  it('says clearly when Redis is not there, or when the options conflict', async () => {
    const down = await cli(['expand', 's/c', '--store', 'redis://127.0.0.1:1/0']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot connect to Redis at redis:\/\/127\.0\.0\.1:1\/0/);
    expect((await cli(['expand', 's/c', '--store', redis.url, '--dir', '/tmp/x'])).stderr).toMatch(
      /give --dir D or --store URL, not both/,
    );
    expect((await cli(['expand', 's/c', '--store', 'http://x'])).stderr).toMatch(
      /a store URL is a Redis URL such as redis:\/\//,
    );
    expect((await cli(['prune', '--store', redis.url])).stderr).toMatch(/prune applies to the file store/);
  });
});
if (!REDIS_SERVER) describe('--store', () => it.skip(REDIS_MISSING, () => {}));

describe.skipIf(!REDIS_CLUSTER_TOOLS)('--store redis-cluster://...', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster({ masters: 3, replicas: 0 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('cap and expand share a Redis Cluster given by any of its nodes; a bad URL says what it wants', async () => {
    const [first = 0, second = 0] = cluster.ports;
    const capped = await cli(['cap', '--session', 's', '--call', 'c', '--bytes', '500', '--json'], {
      stdin: output,
      env: { SPILLWAY_STORE: `redis-cluster://127.0.0.1:${first}` },
    });
    expect(capped.code, capped.stderr).toBe(0);
    const expanded = await cli(['expand', 's/c', '--all', '--store', `redis-cluster://127.0.0.1:${second}`]);
    expect(expanded.raw.equals(Buffer.from(output))).toBe(true);
    const bad = await cli(['expand', 's/c', '--store', 'redis-cluster://:hunter2@nohost']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid Redis Cluster URL .*redis-cluster:\/\/host:port/);
    expect(bad.stderr).not.toContain('hunter2');
  });
});
if (!REDIS_CLUSTER_TOOLS) describe('--store redis-cluster', () => it.skip(REDIS_CLUSTER_MISSING, () => {}));

describe('--store with a bad Redis URL', () => {
  it('says what is wrong with the port or the database, with an example, and exits 2', async () => {
    for (const [url, why] of [
      ['redis://127.0.0.1:99999/0', 'port "99999" is not 1-65535'],
      ['redis://127.0.0.1:notaport/0', 'port "notaport" is not 1-65535'],
      ['redis://127.0.0.1:6379/abc', 'database "abc" is not a number'],
      ['redis://:secret@127.0.0.1:0/0', 'port "0" is not 1-65535'],
    ] as const) {
      const r = await cli(['expand', 's/c', '--store', url]);
      expect(r.code, url).toBe(2);
      expect(r.stderr, url).toContain(why);
      expect(r.stderr).toContain('e.g. redis://127.0.0.1:6379/0');
      expect(r.stderr).not.toMatch(/TypeError|secret/);
    }
  });
});
