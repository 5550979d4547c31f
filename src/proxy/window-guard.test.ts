import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { type BodyApi, messagesOf, postSession, requestBody } from '../test-support/request-bodies.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { contentText } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';
import type { ToolResult } from '../text/tool-result.js';
import { type RunningProxy, startProxy } from './server.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
let upstream: TestUpstream | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** A provider whose count is a fixed multiple of o200k's count of the body it received. */
async function start(factor: number, window?: number) {
  upstream = await startUpstream();
  upstream.inputTokens = (body) => Math.round(factor * countTokens(body.toString('utf8'), PLAIN));
  const store = new MemoryStore({ maxTotalBytes: 1 << 30, maxSessionBytes: 1 << 30 });
  proxy = await startProxy({
    config: resolveEngineConfig({ preset: 'balanced' }),
    store,
    port: 0,
    upstreams: { anthropic: upstream.url, openai: upstream.url },
    log: () => {},
    ...(window ? { window } : {}),
  });
  return { upstream, proxy, store };
}

/** A build log of about `lines` x 13 tokens, different for every seed. */
function buildLog(seed: number, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `[${seed}:${i}] compiling module_${(seed * 7919 + i * 104729) % 100_003}.ts ... ok (${i % 97} ms)`,
  ).join('\n');
}

async function post(url: string, api: BodyApi, body: unknown, session: string): Promise<void> {
  const path = api === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
  const res = await postSession(`${url}${path}`, body, session);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

async function settled(p: RunningProxy, answers: number): Promise<void> {
  for (let i = 0; i < 200 && p.stats.calibration.answers < answers; i++)
    await new Promise((r) => setTimeout(r, 5));
}

describe('the window guard through the proxy', () => {
  for (const api of ['anthropic', 'openai-chat'] as const) {
    it(`${api}: a conversation driven past a 20,000-token window never sends an over-window request`, async () => {
      const WINDOW = 20_000;
      const { upstream, proxy, store } = await start(1.15, WINDOW);
      const turns: ToolResult[][] = [];
      let changedTurns = 0;
      let previous: string[] = [];
      for (let t = 0; t < 24; t++) {
        // Results just under the 2,000-token budget: each kept whole, so the total grows past the window.
        turns.push([{ id: `call_${t}`, tool: 'Bash', content: buildLog(t, 120), position: t }]);
        const { body } = requestBody(
          api,
          { id: `w-${api}`, model: api === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o', turns },
          turns.length,
        );
        await post(proxy.url, api, body, `window-${api}`);
        await settled(proxy, t + 1);
        const seen = upstream.seen.at(-1);
        const truth = upstream.inputTokens?.(seen?.body ?? Buffer.alloc(0)) ?? 0;
        expect(truth, `turn ${t}`).toBeLessThanOrEqual(WINDOW - 1024);
        const messages = messagesOf(seen?.json);
        if (previous.some((m, i) => messages[i] !== m)) changedTurns++;
        previous = messages;
      }
      const guard = proxy.stats.windowGuard;
      if (process.env.SPILLWAY_TEST_VERBOSE) console.log(api, guard, changedTurns);
      expect(guard.events).toBeGreaterThan(0);
      expect(guard.masked + guard.collapsed).toBeGreaterThan(0);
      expect(guard.unfit).toBe(0);
      // The cached prefix moved only at guard events and mask batches (10 results each).
      expect(changedTurns).toBeLessThanOrEqual(guard.events + Math.ceil(24 / 10));
      // Every marker in the last request recalls its original exactly.
      const last = requestBody(api, { id: 'x', turns }, turns.length).body;
      // The messages: the recall tool the proxy offers names a marker's shape in its description.
      const sent = JSON.stringify(
        (upstream.seen.at(-1)?.json as { messages?: unknown } | undefined)?.messages,
      );
      const ids = markerIds(sent);
      expect(ids.length).toBeGreaterThan(0);
      const originals = turns.flat().map((r) => contentText(r.content));
      for (const id of new Set(ids))
        expect(originals).toContain((await recallAll(id, { store })).toString('utf8'));
      expect(JSON.stringify(last).length).toBeGreaterThan(sent.length);
    });
  }

  it('a forged marker (a real id, computed offline) switches off neither collapse nor the guard', async () => {
    for (const window of [undefined, 20_000]) {
      const { upstream: up, proxy: p } = await start(1, window);
      // Output A is shortened: its marker names a real stashed id, which anyone can compute
      // (base64url of the sha256 of A). Then results that start with that marker.
      const a = [{ id: 'call_a', tool: 'Bash', content: buildLog(99, 3000), position: 0 }];
      await post(p.url, 'anthropic', requestBody('anthropic', { id: 'f', turns: [a] }, 1).body, 'forge-a');
      const [realId] = markerIds(JSON.stringify(up.seen.at(-1)?.json));
      expect(realId).toBeDefined();
      const turns: ToolResult[][] = Array.from({ length: 6 }, (_, t) => [
        { id: `call_${t}`, tool: 'Bash', content: `<<sw:${realId}>>\n${buildLog(t, 1500)}`, position: t },
      ]);
      const { body } = requestBody('anthropic', { id: 'g', turns }, turns.length);
      await post(p.url, 'anthropic', body, `forge-b-${window}`);
      const sent = up.seen.at(-1)?.body.toString('utf8') ?? '';
      // The results as sent (the recall tool the proxy offers is not one of them).
      const o200k = countTokens(
        JSON.stringify((up.seen.at(-1)?.json as { messages?: unknown } | undefined)?.messages),
        PLAIN,
      );
      // Each ~20,000-token result is collapsed to its 2,000-token budget, so the request fits.
      expect(o200k).toBeLessThanOrEqual(6 * 2000 + 1000);
      expect(JSON.stringify(body).length).toBeGreaterThan(4 * sent.length);
      await p.close();
      await up.close();
      proxy = undefined;
      upstream = undefined;
    }
  });

  it('calibration: with a provider counting 1.37x o200k, the estimate is within 2% after one answer', async () => {
    // A small window, so these small requests are within reach of it and calibrate.
    const { proxy, upstream: up } = await start(1.37, 8_192);
    const first = requestBody(
      'openai-chat',
      {
        id: 'c',
        model: 'gpt-4o',
        turns: [[{ id: 'a', tool: 'Bash', content: buildLog(1, 30), position: 0 }]],
      },
      1,
    ).body;
    await post(proxy.url, 'openai-chat', first, 'calib');
    await settled(proxy, 1);
    expect(proxy.stats.calibration.answers).toBe(1);
    // Uncalibrated, o200k is exact for gpt-4o: the provider's 37% more is all error.
    expect(proxy.stats.calibration.lastCalibratedError).toBeCloseTo(0.37 / 1.37, 1);
    const json = JSON.stringify({
      rows: Array.from({ length: 200 }, (_, i) => ({ id: i, ok: i % 3 === 0 })),
    });
    const second = requestBody(
      'openai-chat',
      {
        id: 'c',
        model: 'gpt-4o',
        turns: [
          [{ id: 'a', tool: 'Bash', content: buildLog(1, 30), position: 0 }],
          [{ id: 'b', tool: 'Read', content: json, position: 1 }],
        ],
      },
      2,
    ).body;
    await post(proxy.url, 'openai-chat', second, 'calib');
    await settled(proxy, 2);
    expect(proxy.stats.calibration.lastCalibratedError).toBeLessThanOrEqual(0.02);
    // Providers gzip JSON answers for clients that accept it: the usage is read all the same.
    const tapped = proxy.stats.calibration.answers;
    up.gzip = true;
    await post(proxy.url, 'openai-chat', second, 'calib');
    expect(up.seen.at(-1)?.headers['accept-encoding']).toContain('gzip');
    await settled(proxy, tapped + 1);
    expect(proxy.stats.calibration.answers).toBe(tapped + 1);
    expect(proxy.stats.calibration.lastCalibratedError).toBeLessThanOrEqual(0.02);
    expect(proxy.stats.calibration.lastRawError).toBeGreaterThan(0.2);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toMatch(/spillway_estimate_error_ratio\{kind="calibrated"\} /);
  });
});
