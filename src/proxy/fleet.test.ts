import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { ADAPTERS } from '../providers/index.js';
import { readTranscript } from '../replay/readers/index.js';
import { RedisStore } from '../store/backends/redis-store.js';
import { corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { proxyProcess } from '../test-support/proxy-process.js';
import { REDIS_MISSING, REDIS_SERVER, startRedis, type TestRedis } from '../test-support/redis.js';
import { messagesOf, postSession, requestBody } from '../test-support/request-bodies.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { textOf } from '../text/blocks.js';
import { MASK_PREFIX, markerIds } from '../text/markers.js';
import { startProxy } from './server.js';

const bigLog = Array.from({ length: 20_000 }, (_, i) => `[${i}] step ${i} done in ${(i * 7) % 113} ms`).join(
  '\n',
);

async function post(proxy: string, path: string, body: unknown, session: string): Promise<Response> {
  return postSession(`${proxy}${path}`, body, session);
}

const anthropic = (content: string, system: string) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  system,
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_f', name: 'Bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_f', content }] },
  ],
});

describe.skipIf(!REDIS_SERVER)('a fleet of proxies sharing one Redis', () => {
  let redis: TestRedis;
  let upstream: TestUpstream;
  let a: { url: string; child: ChildProcess };
  let b: { url: string; child: ChildProcess };

  beforeAll(async () => {
    redis = await startRedis();
    upstream = await startUpstream();
    // Both or neither: one that started is stopped when the other did not.
    const started = await Promise.allSettled([
      proxyProcess(redis.url, upstream.url, ['--open-recall']),
      proxyProcess(redis.url, upstream.url, ['--open-recall']),
    ]);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      for (const s of started) if (s.status === 'fulfilled') s.value.child.kill('SIGKILL');
      throw failed.reason;
    }
    [a, b] = started.map(
      (s) => (s as PromiseFulfilledResult<{ url: string; child: ChildProcess }>).value,
    ) as [typeof a, typeof b];
  });
  afterAll(async () => {
    const exited = [a, b].map(
      (p) => p && p.child.exitCode === null && new Promise((r) => p.child.once('exit', r)),
    );
    a?.child.kill('SIGTERM');
    b?.child.kill('SIGTERM');
    await Promise.all(exited);
    await upstream?.close();
    await redis?.stop();
  });

  it('a marker written through proxy A is recalled through proxy B, over /expand and MCP', async () => {
    expect((await post(a.url, '/v1/messages', anthropic(bigLog, 'fleet 1'), 'fleet-1')).status).toBe(200);
    const sent = ADAPTERS.anthropic.view(upstream.seen.at(-1)?.json)?.results[0]?.content as string;
    const id = markerIds(sent)[0] as string;
    expect(id).toBeDefined();
    let text = '';
    for (let offset = 0; ; ) {
      const page = await (await fetch(`${b.url}/expand?id=${id}&offset=${offset}`)).text();
      const footer = /\n\[bytes (\d+)-(\d+) of (\d+);[^\]]*\]$/.exec(page);
      if (!footer) throw new Error(page.slice(-200));
      text += page.slice(0, footer.index);
      offset = Number(footer[2]);
      if (offset >= Number(footer[3])) break;
    }
    expect(text).toBe(bigLog);
    const mcp = new Client({ name: 'fleet-test', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${b.url}/mcp`)));
    const r = (await mcp.callTool({ name: 'spillway_expand', arguments: { id } })) as {
      content: { text: string }[];
    };
    expect(r.content[0]?.text.startsWith(bigLog.slice(0, 1000))).toBe(true);
    // Search through the other proxy, over MCP, on the Redis store: the line and its number.
    const lines = bigLog.split('\n');
    const needle = lines[lines.length - 7] as string;
    const grep = (await mcp.callTool({
      name: 'spillway_expand',
      arguments: { id, grep: needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), context: 0 },
    })) as { content: { text: string }[] };
    expect(grep.content[0]?.text).toBe(
      `${lines.length - 6}:${needle}\n[grep "${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": 1 matching lines of ${lines.length}]`,
    );
    await mcp.close();
  });

  it.skipIf(!corpusAvailable)(
    'a conversation whose turns alternate between A and B keeps its rewritten prefix byte-identical (needs ../shared/corpus)',
    async () => {
      const file = corpusFiles().find((f) => f.includes('ae4a77f8')) ?? (corpusFiles()[0] as string);
      const conversation = readTranscript(readFileSync(file, 'utf8'), file).conversations[0];
      if (!conversation) throw new Error('no conversation');
      let previous: string[] = [];
      let rewritten = 0;
      for (let turn = 1; turn <= conversation.turns.length; turn++) {
        const proxy = turn % 2 === 0 ? a : b;
        const { path, body } = requestBody('anthropic', conversation, turn);
        const res = await post(proxy.url, path, body, 'fleet-alternating');
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        const messages = messagesOf(upstream.seen.at(-1)?.json);
        // Byte-identical, but for old results masked in a batch (whichever proxy's turn it is).
        const where = `turn ${turn} via ${proxy === a ? 'A' : 'B'}`;
        for (const [i, m] of previous.entries())
          if (messages[i] !== m) {
            expect(messages[i], where).toContain(MASK_PREFIX);
            expect(turn % 10, `${where}: a mask batch comes every 10 results`).toBe(0);
          }
        previous = messages;
      }
      for (const r of ADAPTERS.anthropic.view(upstream.seen.at(-1)?.json)?.results ?? [])
        if (markerIds(textOf(r.content) ?? '').length) rewritten++;
      expect(rewritten).toBeGreaterThan(2);
    },
  );
});

describe.skipIf(!REDIS_SERVER)('the proxy when Redis goes away and comes back', () => {
  it('keeps serving (results sent whole, counted as stash_failed and logged), reconnects, and stashes again after the restart', async () => {
    const redis = await startRedis();
    const upstream = await startUpstream();
    const store = await RedisStore.connect(redis.url);
    const logs: Record<string, unknown>[] = [];
    const proxy = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      log: (line) => logs.push(line),
    });
    const sentResult = () =>
      ADAPTERS.anthropic.view(upstream.seen.at(-1)?.json)?.results[0]?.content as string;
    try {
      let n = 0;
      const request = async (log = bigLog) => {
        n++;
        const res = await post(
          proxy.url,
          '/v1/messages',
          anthropic(`${log}\n${n}`, `redis ${n}`),
          `redis-${n}`,
        );
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        return sentResult();
      };
      expect(markerIds(await request())).toHaveLength(1);
      await redis.kill();
      // A log over the budget that fits the model's window: sent whole, as without spillway.
      const smaller = bigLog.slice(0, 100_000);
      for (let i = 0; i < 3; i++) expect(await request(smaller)).toBe(`${smaller}\n${n}`);
      expect(proxy.stats.stages.collapse?.declined.stash_failed).toBe(3);
      expect(logs.filter((l) => l.sentWhole === 1 && typeof l.stashError === 'string')).toHaveLength(3);
      expect(proxy.stats.failOpen).toBe(0);
      await redis.start();
      // The client reconnects on its own (backoff under 2 s); stashing resumes without a restart.
      let resumed = false;
      for (let i = 0; i < 60 && !resumed; i++) {
        resumed = markerIds(await request()).length === 1;
        if (!resumed) await new Promise((r) => setTimeout(r, 100));
      }
      expect(resumed).toBe(true);
    } finally {
      await proxy.close();
      await store.close();
      await upstream.close();
      await redis.stop();
    }
  });
});

if (!REDIS_SERVER) describe('fleet', () => it.skip(REDIS_MISSING, () => {}));
