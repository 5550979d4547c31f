import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { ADAPTERS } from '../providers/index.js';
import { clusterKeys, keySlot } from '../store/backends/redis-cluster-keys.js';
import { RedisClusterStore } from '../store/backends/redis-cluster-store.js';
import { stashKey } from '../store/ids.js';
import { stash } from '../store/stash.js';
import { VALKEY_MISSING, VALKEY_SERVER } from '../test-support/redis.js';
import {
  REDIS_CLUSTER_MISSING,
  REDIS_CLUSTER_TOOLS,
  startCluster,
  type TestCluster,
} from '../test-support/redis-cluster.js';
import { messagesOf, postSession } from '../test-support/request-bodies.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { textOf } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';
import { type RunningProxy, startProxy } from './server.js';

const SESSIONS = 8;
const TURNS = 8;

/** A build log of ~50 KB, different for every session and turn, one error line in the middle. */
function buildLog(session: number, turn: number): string {
  const lines = Array.from(
    { length: 1500 },
    (_, i) =>
      `[s${session} t${turn}] compiling unit_${(session * 7919 + turn * 104729 + i * 31) % 99_991}.c ok`,
  );
  lines[750] = `src/unit_${session}_${turn}.c:42:7: error: use of undeclared identifier 'frobnicate'`;
  return lines.join('\n');
}

/** The request of a session after `turns` turns: every turn a Bash call and its log. */
function body(session: number, turns: number) {
  const messages: unknown[] = [{ role: 'user', content: `build session ${session}` }];
  for (let t = 0; t < turns; t++) {
    const id = `toolu_${session}_${t}`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'make' } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: buildLog(session, t) }],
    });
  }
  return { model: 'claude-sonnet-4-5', max_tokens: 10, system: `failover session ${session}`, messages };
}

/** The whole original behind a marker, page by page over a proxy's /expand. */
async function recallOver(proxy: RunningProxy, id: string): Promise<string> {
  let text = '';
  for (let offset = 0; ; ) {
    const res = await fetch(`${proxy.url}/expand?id=${id}&offset=${offset}`);
    const page = await res.text();
    const footer = /\n\[bytes (\d+)-(\d+) of (\d+);[^\]]*\]$/.exec(page);
    if (res.status !== 200 || !footer) throw new Error(`recall of ${id}: ${res.status} ${page.slice(-200)}`);
    text += page.slice(0, footer.index);
    offset = Number(footer[2]);
    if (offset >= Number(footer[3])) return text;
  }
}

const SERVERS = [
  {
    name: 'Redis',
    server: 'redis-server',
    cli: 'redis-cli',
    present: REDIS_CLUSTER_TOOLS,
    missing: REDIS_CLUSTER_MISSING,
  },
  {
    name: 'Valkey',
    server: 'valkey-server',
    cli: 'valkey-cli',
    present: VALKEY_SERVER,
    missing: VALKEY_MISSING,
  },
];

for (const { name, present, missing } of SERVERS) {
  if (!present) describe(`fleet failover on ${name}`, () => it.skip(missing, () => {}));
}

describe.each(SERVERS.filter((s) => s.present))(
  'two proxies on a $name cluster whose master is killed',
  ({ server, cli }) => {
    let cluster: TestCluster;
    let upstream: TestUpstream;
    const stores: RedisClusterStore[] = [];
    const proxies: RunningProxy[] = [];

    beforeAll(async () => {
      cluster = await startCluster({ masters: 3, replicas: 1, server, cli });
      upstream = await startUpstream();
      for (let i = 0; i < 2; i++) {
        const store = await RedisClusterStore.connect(cluster.url, { connectTimeoutMs: 1000 });
        stores.push(store);
        proxies.push(
          await startProxy({
            config: resolveEngineConfig(),
            store,
            port: 0,
            upstreams: { anthropic: upstream.url },
            log: () => {},
          }),
        );
      }
    }, 60_000);
    afterAll(async () => {
      for (const p of proxies) await p.close();
      for (const s of stores) await s.close();
      await upstream?.close();
      await cluster?.stop();
    });

    it('serves every request, sends no marker it cannot recall, and keeps frozen decisions byte-identical', async () => {
      // The master of the ledger's slot: every write reserves there, so its loss is felt by all.
      const victim = cluster.masterOf(keySlot(clusterKeys('spillway').ledger[0] ?? ''));
      const sent = new Map<number, string[][]>(); // session -> the messages of each of its requests
      const originals = new Map<string, string>(); // marker id -> the original it stands for
      const statuses: number[] = [];
      const round = (turn: number, proxyOf: (session: number) => RunningProxy) =>
        Promise.all(
          Array.from({ length: SESSIONS }, async (_, session) => {
            const res = await postSession(
              `${proxyOf(session).url}/v1/messages`,
              body(session, turn),
              `failover-${session}`,
            );
            statuses.push(res.status);
            await res.arrayBuffer();
            const seen = upstream.seen.findLast(
              (s) => (s.json as { system?: string } | undefined)?.system === `failover session ${session}`,
            );
            sent.set(session, [...(sent.get(session) ?? []), messagesOf(seen?.json)]);
            for (const [i, r] of (ADAPTERS.anthropic.view(seen?.json)?.results ?? []).entries())
              for (const id of markerIds(textOf(r.content) ?? '')) originals.set(id, buildLog(session, i));
          }),
        );
      // Turns alternate between the proxies, each session starting on a different one.
      const alternate = (turn: number) => (session: number) => proxies[(turn + session) % 2] as RunningProxy;

      // Healthy: a proxy repeats the prefix the other sent, byte for byte.
      for (let turn = 1; turn <= 3; turn++) await round(turn, alternate(turn));
      for (const [session, requests] of sent)
        for (let t = 1; t < requests.length; t++)
          expect(
            (requests[t] ?? []).slice(0, requests[t - 1]?.length),
            `session ${session} turn ${t + 1}`,
          ).toEqual(requests[t - 1]);

      // A master killed; rounds spread over the failover (a second of node timeout, then the election).
      await cluster.kill(victim);
      for (let turn = 4; turn < TURNS; turn++) {
        await round(turn, alternate(turn));
        await new Promise((r) => setTimeout(r, 800));
      }
      await cluster.healthy();
      // Then the same last request through each proxy: the same bytes go upstream from both.
      await round(TURNS, () => proxies[0] as RunningProxy);
      await round(TURNS, () => proxies[1] as RunningProxy);
      for (const [session, requests] of sent)
        expect(requests.at(-1), `session ${session}: proxy B sends what proxy A sent`).toEqual(
          requests.at(-2),
        );

      expect(statuses).toHaveLength(SESSIONS * (TURNS + 1));
      expect(statuses.every((s) => s === 200)).toBe(true);
      // Every marker sent, recalled whole through either proxy once the replica took over.
      expect(originals.size).toBeGreaterThan(SESSIONS * 4);
      for (const [id, original] of originals)
        for (const proxy of proxies)
          expect(await recallOver(proxy, id), `${id} via ${proxy.url}`).toBe(original);
      // Stashing failed only while the shard had no master: new results are stashed again.
      const fallbacks = proxies.map((p) => p.stats.stages.collapse?.declined.stash_failed ?? 0);
      // The outage was felt (results sent whole, unsaved, while the ledger's shard had no master).
      expect(fallbacks.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      const last = await postSession(`${proxies[0]?.url}/v1/messages`, body(99, 1), 'failover-after');
      await last.arrayBuffer();
      // The conversation's markers (the recall tool the proxy offers names a marker's form too).
      expect(markerIds(messagesOf(upstream.seen.at(-1)?.json).join('\n'))).toHaveLength(1);
      expect(proxies.map((p) => p.stats.stages.collapse?.declined.stash_failed ?? 0)).toEqual(fallbacks);
    }, 120_000);

    it('with a shard gone (its master and replicas killed): every request answered, its results whole, the reason logged; a recall of what the shard held fails naming the store', async () => {
      // Originals on every shard, written while all are up.
      const writer = await RedisClusterStore.connect(cluster.url, { connectTimeoutMs: 1000 });
      const ids: string[] = [];
      for (let i = 0; i < 24; i++) ids.push(await stash(writer, `an output of run ${i}`));
      await writer.close();
      // The ledger's shard: every stash reserves there, so with it gone no stash can succeed.
      const lost = cluster.masterOf(keySlot(clusterKeys('spillway').ledger[0] ?? ''));
      const held = ids.filter(
        (id) => cluster.masterOf(keySlot(clusterKeys('spillway').body(stashKey(id)))) === lost,
      );
      expect(held.length).toBeGreaterThan(0);
      for (const port of [lost, ...cluster.replicasOf(lost)]) await cluster.kill(port);

      const store = await RedisClusterStore.connect(cluster.url, {
        connectTimeoutMs: 1000,
        deadlineMs: 2000,
      });
      const logs: Record<string, unknown>[] = [];
      const proxy = await startProxy({
        config: resolveEngineConfig(),
        store,
        port: 0,
        upstreams: { anthropic: upstream.url },
        log: (line) => logs.push(line),
      });
      try {
        for (let session = 0; session < 3; session++) {
          const sent = body(100 + session, 2);
          const res = await postSession(`${proxy.url}/v1/messages`, sent, `shard-gone-${session}`);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          // What the client sent, whole: nothing cut that could not be recalled.
          const seen = upstream.seen.at(-1);
          expect(seen?.json).toEqual(sent);
          expect(markerIds(seen?.body.toString('utf8') ?? '')).toEqual([]);
        }
        const line = logs.find((l) => typeof l.stashError === 'string');
        expect(line?.sentWhole).toBeGreaterThan(0);
        expect(String(line?.stashError)).toMatch(
          /Redis Cluster at redis-cluster:\/\/.*(did not answer|CLUSTERDOWN)/,
        );
        const recall = await fetch(`${proxy.url}/expand?id=${held[0]}`);
        expect(recall.status).toBeGreaterThanOrEqual(500);
        expect(await recall.text()).toMatch(/Redis Cluster at redis-cluster:\/\/|CLUSTERDOWN/);
      } finally {
        await proxy.close();
        await store.close();
      }
    }, 90_000);
  },
);
