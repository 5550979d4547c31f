import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatMessage, chatConversation, postJson } from '../test-support/gateway-bodies.js';
import { proxyProcess } from '../test-support/proxy-process.js';
import {
  REDIS_CLUSTER_MISSING,
  REDIS_CLUSTER_TOOLS,
  startCluster,
  type TestCluster,
} from '../test-support/redis-cluster.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';

describe.skipIf(!REDIS_CLUSTER_TOOLS)(
  `two spillway proxies behind one gateway, on one Redis Cluster${REDIS_CLUSTER_TOOLS ? '' : ` (skipped: ${REDIS_CLUSTER_MISSING})`}`,
  () => {
    let cluster: TestCluster;
    let upstream: TestUpstream;
    const proxies: { url: string; child: ChildProcess }[] = [];

    beforeAll(async () => {
      cluster = await startCluster({ masters: 3, replicas: 0 });
      upstream = await startUpstream();
      const started = await Promise.allSettled([
        proxyProcess(cluster.url, upstream.url, ['--open-recall']),
        proxyProcess(cluster.url, upstream.url, ['--open-recall']),
      ]);
      for (const s of started) if (s.status === 'fulfilled') proxies.push(s.value);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }, 90_000);
    afterAll(async () => {
      for (const p of proxies) p.child.kill('SIGKILL');
      await upstream?.close();
      await cluster?.stop();
    });

    const compress = async (at: number, turns: number) => {
      const { status, json } = await postJson(`${proxies[at]?.url}/v1/compress`, {
        messages: chatConversation('fleet', turns),
        model: 'gpt-4o',
      });
      expect(status).toBe(200);
      return json;
    };

    it('gives a retrieve or a later turn served by the other instance the same answer and the same bytes', async () => {
      const one = await compress(0, 1);
      const [hash] = one.ccr_hashes as string[];
      const fromA = await fetch(`${proxies[0]?.url}/v1/retrieve/${hash}`).then((r) => r.json());
      const fromB = await fetch(`${proxies[1]?.url}/v1/retrieve/${hash}`).then((r) => r.json());
      expect(fromB).toEqual(fromA);
      expect((fromB as { original_content: string }).original_content).toBe(
        (chatConversation('fleet', 1)[3] as ChatMessage).content,
      );
      // Turns alternate between the instances: each shares the bytes of the one before.
      const two = await compress(1, 2);
      const three = await compress(0, 3);
      const m1 = one.messages as ChatMessage[];
      const m2 = two.messages as ChatMessage[];
      const m3 = three.messages as ChatMessage[];
      expect(JSON.stringify(m2.slice(0, m1.length))).toBe(JSON.stringify(m1));
      expect(JSON.stringify(m3.slice(0, m2.length))).toBe(JSON.stringify(m2));
      // The same request to either instance: the same bytes.
      const again = await compress(1, 3);
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(m3));
      for (const h of three.ccr_hashes as string[])
        expect((await fetch(`${proxies[1]?.url}/v1/retrieve/${h}`)).status).toBe(200);
    });
  },
);
