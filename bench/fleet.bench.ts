import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { RedisClusterStore } from '../src/store/backends/redis-cluster-store.js';
import { RedisStore } from '../src/store/backends/redis-store.js';
import type { Store } from '../src/store/store.js';
import { proxyProcess } from '../src/test-support/proxy-process.js';
import { startRedis } from '../src/test-support/redis.js';
import { startCluster } from '../src/test-support/redis-cluster.js';
import { MB } from './inputs.js';
import { interleaved, median, medianRatio, ms } from './measure.js';
import { post, upstream } from './proxy.bench.js';

const CLIENTS = 16;
const WINDOW_MS = 2000;
const ROUNDS = 3;

/** A request of a new session whose one result is a ~50 KB build log, different each time. */
function request(n: number): string {
  const log = Array.from(
    { length: 1500 },
    (_, i) => `[${n}] cc -c unit_${(n * 7919 + i * 31) % 99_991}.c ok`,
  );
  log[700] = `src/unit_${n}.c:42:7: error: use of undeclared identifier 'frobnicate'`;
  return JSON.stringify({
    model: 'claude-sonnet-4-5',
    max_tokens: 10,
    messages: [
      { role: 'user', content: 'build' },
      { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'Bash', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: log.join('\n') }],
      },
    ],
  });
}

let sent = 0;
/** `clients` clients, each sending requests one after another to the proxies in turn, for `windowMs`. */
async function load(
  urls: string[],
  clients: number,
  windowMs: number,
): Promise<{ rps: number; p50: number }> {
  const latencies: number[] = [];
  const until = performance.now() + windowMs;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; performance.now() < until; i++) {
        const n = sent++;
        const t = performance.now();
        await post(urls[i % urls.length] as string, request(n), `fleet-${n}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { rps: latencies.length / (windowMs / 1000), p50: median(latencies) };
}

/** MB/s of 1 MB stash writes, 8 at a time, 32 per sample. */
async function stashThroughput(store: Store, round: number): Promise<number> {
  const body = Buffer.alloc(MB, 'x');
  const t = performance.now();
  for (let at = 0; at < 32; at += 8)
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        body.write(`${round}-${at + i}-`, 0);
        return store.put({ dir: 'pruned', name: `mb${round}_${at + i}_${sent++}` }, body);
      }),
    );
  return 32 / ((performance.now() - t) / 1000);
}

/**
 * A fleet of proxies on one Redis and on a Redis Cluster (3 masters, a replica each): requests
 * per second (16 clients) and p50 (one client) with 1, 2 and 4 proxies, each turn a 50 KB result stashed and a decision
 * written; and 1 MB stash throughput. Every configuration in every round (interleaved).
 */
export async function benchFleet(): Promise<void> {
  console.log('\nfleet (proxies on one Redis vs a 3+3 Redis Cluster)');
  if (
    spawnSync('redis-cli', ['--version']).status !== 0 ||
    spawnSync('redis-server', ['--version']).status !== 0
  ) {
    console.log('  skipped: redis-server and redis-cli are needed');
    return;
  }
  const up = await upstream();
  const redis = await startRedis();
  const cluster = await startCluster({ masters: 3, replicas: 1 });
  const children: ChildProcess[] = [];
  const stores: Store[] = [];
  try {
    const single = [];
    const clustered = [];
    for (let i = 0; i < 4; i++) {
      single.push(await proxyProcess(redis.url, up.url));
      clustered.push(await proxyProcess(cluster.url, up.url));
    }
    children.push(...single.map((p) => p.child), ...clustered.map((p) => p.child));
    const figures: Record<string, { rps: number; p50: number }[]> = {};
    const direct: number[] = [];
    const cases: Record<string, () => Promise<void>> = {
      direct: async () => {
        const t = performance.now();
        await post(up.url, request(sent++), 'direct');
        direct.push(performance.now() - t);
      },
    };
    for (const [name, fleet] of [
      ['redis', single],
      ['cluster', clustered],
    ] as const)
      for (const size of [1, 2, 4]) {
        const key = `${name} x${size}`;
        const runs: { rps: number; p50: number }[] = [];
        figures[key] = runs;
        cases[key] = async () => {
          const urls = fleet.slice(0, size).map((p) => p.url);
          // Saturated for requests per second; then one client alone for the latency a user adds.
          const { rps } = await load(urls, CLIENTS, WINDOW_MS);
          runs.push({ rps, p50: (await load(urls, 1, WINDOW_MS / 2)).p50 });
        };
      }
    await interleaved(cases, ROUNDS);
    const base = median(direct);
    for (const [key, runs] of Object.entries(figures)) {
      const rps = median(runs.map((r) => r.rps));
      const p50 = median(runs.map((r) => r.p50));
      console.log(
        `  ${key.padEnd(11)} ${rps.toFixed(0).padStart(5)} req/s with ${CLIENTS} clients; one client: p50 ${ms(p50)}, ${ms(p50 - base)} over the upstream alone`,
      );
    }
    const ratios = (a: string, b: string) =>
      medianRatio(
        (figures[a] ?? []).map((r) => r.rps),
        (figures[b] ?? []).map((r) => r.rps),
      ).toFixed(2);
    console.log(
      `  req/s cluster / one Redis: x1 ${ratios('cluster x1', 'redis x1')}, x2 ${ratios('cluster x2', 'redis x2')}, x4 ${ratios('cluster x4', 'redis x4')}; 4 proxies / 1 on the cluster: ${ratios('cluster x4', 'cluster x1')}`,
    );
    const one = await RedisStore.connect(redis.url, { prefix: 'mb' });
    const many = await RedisClusterStore.connect(cluster.url, { prefix: 'mb' });
    stores.push(one, many);
    const mbps = await interleaved(
      { redis: (r) => stashThroughput(one, r), cluster: (r) => stashThroughput(many, r) },
      ROUNDS,
    );
    const rate = (xs: number[]) => `${(32 / (median(xs) / 1000)).toFixed(0)} MB/s`;
    console.log(
      `  1 MB stash writes: one Redis ${rate(mbps.redis)}, cluster ${rate(mbps.cluster)} (waits for a replica each); cluster takes ${medianRatio(mbps.cluster, mbps.redis).toFixed(2)}x the time`,
    );
  } finally {
    for (const s of stores) await s.close?.();
    for (const c of children) {
      const exited = once(c, 'exit');
      c.kill('SIGTERM');
      await exited;
    }
    up.close();
    await cluster.stop();
    await redis.stop();
  }
}
