import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../engine/config.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { listenOnLoopback } from '../../test-support/loopback.js';
import { heuristicTokenizer } from '../../text/tokenizers/heuristic.js';
import { type RunningProxy, startProxy } from '../server.js';

// Prices of a model no table knows, from the config: the figures below are computed by hand.
const PRICE = { input: 2, cacheRead: 0.2, cacheWrite: 2.5 };
const USAGE = { input_tokens: 100, cache_read_input_tokens: 1000, cache_creation_input_tokens: 400 };
const log = Array.from({ length: 4000 }, (_, i) => `compiled module ${i} in ${i % 90} ms`).join('\n');

/** An Anthropic-shaped upstream: answers with USAGE, or with no usage when the request asks. */
async function upstreamOf(sent: Buffer[]) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sent.push(Buffer.concat(chunks));
      const usage = req.headers['x-test-usage'] === 'none' ? {} : { usage: { ...USAGE, output_tokens: 5 } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'message', role: 'assistant', content: [], ...usage }));
    });
  });
  return listenOnLoopback(server);
}

const messages = (results: string[]) => {
  const out: unknown[] = [{ role: 'user', content: 'build it' }];
  results.forEach((content, i) => {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content }] });
  });
  return out;
};

describe('savings with every denominator named (/stats, /metrics)', () => {
  const sent: Buffer[] = [];
  let upstream: Awaited<ReturnType<typeof upstreamOf>>;
  const proxies: RunningProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
    await upstream?.close();
  });
  beforeAll(async () => {
    upstream = await upstreamOf(sent);
  });

  const run = async (observe: boolean) => {
    const proxy = await startProxy({
      config: resolveEngineConfig({ prices: { 'test-model': PRICE } }),
      store: new MemoryStore(),
      port: 0,
      upstreams: { anthropic: upstream.url },
      log: () => {},
      observe,
    });
    proxies.push(proxy);
    const post = async (results: string[], headers: Record<string, string> = {}) => {
      const res = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', ...headers },
        body: JSON.stringify({
          model: 'test-model-1',
          max_tokens: 5,
          system: `s${observe}`,
          messages: messages(results),
        }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    // count_tokens bills nothing: not an answer of the figures (its usage would count as reported).
    const count = await fetch(`${proxy.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ model: 'test-model-1', system: `c${observe}`, messages: messages([log]) }),
    });
    expect(count.status).toBe(200);
    await count.arrayBuffer();
    const first = sent.length;
    await post([log]);
    await post([log, 'ok']);
    await post([log, 'ok', 'done'], { 'x-test-usage': 'none' });
    // The answers are read after they are out: wait for the third.
    // biome-ignore lint/suspicious/noExplicitAny: /stats read field by field
    let stats: any;
    for (let i = 0; i < 100; i++) {
      stats = await (await fetch(`${proxy.url}/stats`)).json();
      if (stats.savings.answers === 3) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return { stats, bodies: sent.slice(first), proxy };
  };

  it('reports the provider usage, an estimate where none came, and the cost on both sides, as computed by hand', async () => {
    const { stats, bodies, proxy } = await run(false);
    const s = stats.savings;
    // The tokens saved on the long log (bytes/4, as the statistics count), from what was sent.
    const sentLog = JSON.parse(bodies[0]?.toString() ?? '').messages[2].content[0].content as string;
    const saved = heuristicTokenizer.count(log) - heuristicTokenizer.count(sentLog);
    expect(saved).toBeGreaterThan(10_000);
    expect(s.answers).toBe(3);
    expect(s.reported).toBe(2);
    expect(s.estimated).toBe(1);
    const estimated = Math.ceil((bodies[2]?.length ?? 0) / 4);
    expect(s.input).toEqual({ input: 200 + estimated, cacheRead: 2000, cacheWrite: 800 });
    // Turn 1: the log is new; turns 2 and 3: it is in the cached prefix.
    expect(s.savedNew).toBe(saved);
    expect(s.savedInPrefix).toBe(2 * saved);
    expect(s.inputWithoutSpillway).toBe(200 + estimated + 2000 + 800 + 3 * saved);
    const answer = (100 * 2 + 1000 * 0.2 + 400 * 2.5) / 1e6;
    const billed = 2 * answer + (estimated * 2) / 1e6;
    const savedCost = (saved * 2.5 + 2 * saved * 0.2) / 1e6;
    expect(s.cost.currency).toBe('USD');
    expect(s.cost.billed).toBeCloseTo(billed, 12);
    expect(s.cost.withSpillway).toBeCloseTo(billed, 12);
    expect(s.cost.withoutSpillway).toBeCloseTo(billed + savedCost, 12);
    expect(s.cost.saved).toBeCloseTo(savedCost, 12);
    expect(s.cost.estimate).toBe('withoutSpillway');
    expect(s.cost.unpriced).toBe(0);
    expect(s.byTool.Bash.before - s.byTool.Bash.after).toBe(3 * saved);
    expect(Object.values(s.bySession)).toEqual([
      {
        before: s.byTool.Bash.before,
        after: s.byTool.Bash.after,
        requests: 3,
        // Nothing old was worth taking out; what spillway saved is what a rewrite could spend.
        rewrites: 0,
        waiting: 0,
        bankedUsd: expect.closeTo(savedCost, 12),
      },
    ]);
    expect(s.recent).toHaveLength(1);
    expect(s.recent[0]).toMatchObject({ tool: 'Bash', stages: ['collapse'] });
    expect(s.recent[0].stashId).toMatch(/^[A-Za-z0-9_-]+$/);
    // What the model saw is an output: not in /stats, only in /dashboard.json (behind the recall token).
    expect(s.recent[0].view).toBeUndefined();
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    const dashboard: any = await (await fetch(`${proxy.url}/dashboard.json`)).json();
    expect(dashboard.stats.savings.recent[0].view).toBe(sentLog.slice(0, 4000));
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toContain('spillway_answers_total{usage="reported"} 2');
    expect(metrics).toContain(`spillway_input_tokens_total{billed_as="cache_read"} 2000`);
    expect(metrics).toMatch(/spillway_input_cost_usd_total\{side="without_spillway"\} 0\.0\d+/);
  });

  it('in observe mode, bills the original and estimates what spillway would have saved', async () => {
    const { stats, bodies } = await run(true);
    const s = stats.savings;
    // Nothing was changed: the log went up whole.
    expect(JSON.parse(bodies[0]?.toString() ?? '').messages[2].content[0].content).toBe(log);
    const estimated = Math.ceil((bodies[2]?.length ?? 0) / 4);
    const billed = (2 * (100 * 2 + 1000 * 0.2 + 400 * 2.5) + estimated * 2) / 1e6;
    expect(s.cost.estimate).toBe('withSpillway');
    expect(s.cost.billed).toBeCloseTo(billed, 12);
    expect(s.cost.withoutSpillway).toBeCloseTo(billed, 12);
    expect(s.cost.withSpillway).toBeLessThan(billed);
    expect(s.cost.saved).toBeCloseTo(billed - s.cost.withSpillway, 12);
    expect(s.inputWithoutSpillway).toBe(s.input.input + s.input.cacheRead + s.input.cacheWrite);
  });
});
