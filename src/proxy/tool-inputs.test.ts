import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { type BodyApi, messagesOf, postSession, requestBody } from '../test-support/request-bodies.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { INPUT_CLEARED_PREFIX, markerIds } from '../text/markers.js';
import type { ToolResult } from '../text/tool-result.js';
import { type RunningProxy, startProxy } from './server.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
let upstream: TestUpstream | undefined;
const proxies: RunningProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  await upstream?.close();
  upstream = undefined;
});

// Cache writes priced as reads: a rewrite then always pays, so these tests see the batch rule alone.
const FLAT = {
  'claude-sonnet-4-5': { input: 3, cacheRead: 3, cacheWrite: 3 },
  'gpt-4o': { input: 2.5, cacheRead: 2.5, cacheWrite: 2.5 },
};

async function start(preset: 'balanced' | 'aggressive', store: MemoryStore, window?: number, prices = FLAT) {
  upstream ??= await startUpstream();
  const up = upstream;
  up.inputTokens = (body) => Math.round(1.1 * countTokens(body.toString('utf8'), PLAIN));
  const proxy = await startProxy({
    config: resolveEngineConfig({ preset, prices }),
    store,
    port: 0,
    upstreams: { anthropic: up.url, openai: up.url },
    log: () => {},
    ...(window ? { window } : {}),
  });
  proxies.push(proxy);
  return { up, proxy };
}

/** A source file of about `lines` x 14 tokens, different for every seed. */
function source(seed: number, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `export const v${seed}_${i} = f(${(seed * 7919 + i * 104729) % 100_003});`,
  ).join('\n');
}

/** Turn t: the model writes file t (its contents in the call's arguments); the result is one line. */
function writeTurns(n: number, lines: number): ToolResult[][] {
  return Array.from({ length: n }, (_, t) => [
    {
      id: `call_w${t}`,
      tool: 'Write',
      content: `File created successfully at: src/f${t}.ts`,
      position: t,
      input: { file_path: `src/f${t}.ts`, content: source(t, lines) },
    },
  ]);
}

async function post(url: string, api: BodyApi, turns: ToolResult[][], session: string) {
  const { path, body } = requestBody(
    api,
    { id: session, model: api === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o', turns },
    turns.length,
    true,
  );
  const res = await postSession(`${url}${path}`, body, session);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** The arguments of every call in a body as sent, parsed. */
function callArguments(api: BodyApi, body: unknown): Record<string, string>[] {
  const b = body as Obj;
  if (api === 'anthropic')
    return list(b.messages)
      .flatMap((m) => list(m.content))
      .filter((block) => block.type === 'tool_use')
      .map((block) => block.input as Record<string, string>);
  const texts =
    api === 'openai-chat'
      ? list(b.messages)
          .flatMap((m) => list(m.tool_calls))
          .map((c) => (c.function as Obj).arguments)
      : list(b.input)
          .filter((item) => item.type === 'function_call')
          .map((item) => item.arguments);
  return texts.map((a) => JSON.parse(a as string));
}

/** Every cleared content's marker recalls the exact file the call wrote. */
async function expectRecallable(args: Record<string, string>[], turns: ToolResult[][], store: MemoryStore) {
  for (const [t, a] of args.entries()) {
    const original = (turns[t]?.[0]?.input as { content: string } | undefined)?.content;
    if (!a.content?.startsWith(INPUT_CLEARED_PREFIX)) {
      expect(original).toBeDefined();
      expect(a.content).toBe(original);
      continue;
    }
    const [id] = markerIds(a.content);
    expect((await recallAll(id as string, { store })).toString('utf8')).toBe(original);
  }
}

describe('old tool inputs', () => {
  for (const api of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${api}: aggressive clears old Write contents in batches of 10, keeps the path, recalls them exactly, and replays the same bytes after a restart`, async () => {
      const store = new MemoryStore({ maxTotalBytes: 1 << 30, maxSessionBytes: 1 << 30 });
      const { up, proxy } = await start('aggressive', store);
      const turns = writeTurns(26, 60);
      const cleared: number[] = [];
      let previous: string[] = [];
      let rewrites = 0;
      for (let t = 1; t <= turns.length; t++) {
        await post(proxy.url, api, turns.slice(0, t), `inputs-${api}`);
        const sent = up.seen.at(-1)?.json;
        const args = callArguments(api, sent);
        expect(args.map((a) => a.file_path)).toEqual(turns.slice(0, t).map((_, i) => `src/f${i}.ts`));
        cleared.push(args.filter((a) => a.content?.startsWith(INPUT_CLEARED_PREFIX)).length);
        await expectRecallable(args, turns, store);
        const messages = messagesOf(sent);
        if (previous.some((m, i) => messages[i] !== m)) rewrites++;
        previous = messages;
      }
      // 10 kept recent, then the oldest cleared 10 at a time: at 20 calls, never before.
      expect(cleared.slice(18, 21)).toEqual([0, 10, 10]);
      expect(cleared.at(-1)).toBe(10);
      expect(rewrites).toBe(1);
      expect(proxy.stats.inputsCleared).toBe(10);
      // A second proxy on the same store (a restart) sends the same bytes for the same request.
      await proxy.close();
      proxies.splice(proxies.indexOf(proxy), 1);
      const again = await start('aggressive', store);
      await post(again.proxy.url, api, turns, `inputs-${api}`);
      expect(messagesOf(up.seen.at(-1)?.json)).toEqual(previous);
    });
  }

  it("at Anthropic's cache prices, clearing ten small files' contents from the start of a short conversation does not pay: nothing is cleared", async () => {
    const store = new MemoryStore({ maxTotalBytes: 1 << 30, maxSessionBytes: 1 << 30 });
    const { up, proxy } = await start('aggressive', store, undefined, {} as typeof FLAT);
    const turns = writeTurns(22, 60);
    for (let t = 1; t <= turns.length; t++)
      await post(proxy.url, 'anthropic', turns.slice(0, t), 'inputs-pay');
    const args = callArguments('anthropic', up.seen.at(-1)?.json);
    expect(args.filter((a) => a.content?.startsWith(INPUT_CLEARED_PREFIX))).toEqual([]);
    expect(proxy.stats.inputsCleared).toBe(0);
  });

  it("a cleared input keeps the client's bytes around it: big integers, 1.50, a key given twice and spacing go upstream as sent", async () => {
    const store = new MemoryStore({ maxTotalBytes: 1 << 30, maxSessionBytes: 1 << 30 });
    const { up, proxy } = await start('aggressive', store);
    const turns = writeTurns(21, 60);
    const RAW = '"seed" : 12345678901234567891, "ratio":1.50,\n "mode":"a", "mode":"b", "note":"\\u00e9"';
    const first = turns[0]?.[0];
    if (first) first.input = { ...(first.input as object), raw: 'RAW-HERE' };
    const original = source(0, 60);
    for (let t = 1; t <= turns.length; t++) {
      const { path, body } = requestBody(
        'anthropic',
        { id: 'raw-inputs', model: 'claude-sonnet-4-5', turns: turns.slice(0, t) },
        t,
        true,
      );
      const text = JSON.stringify(body).replace('"raw":"RAW-HERE"', RAW);
      const res = await fetch(`${proxy.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-spillway-session': 'raw-inputs' },
        body: text,
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const sent = up.seen.at(-1)?.body.toString('utf8') ?? '';
    const [args] = callArguments('anthropic', up.seen.at(-1)?.json);
    expect(args?.content?.startsWith(INPUT_CLEARED_PREFIX)).toBe(true);
    expect(sent).toContain(`"content":${JSON.stringify(args?.content)},${RAW}`);
    const [id] = markerIds(args?.content ?? '');
    expect((await recallAll(id as string, { store })).toString('utf8')).toBe(original);
  });

  it('the window guard clears old inputs when they alone fill the window, and every request fits', async () => {
    const WINDOW = 20_000;
    const store = new MemoryStore({ maxTotalBytes: 1 << 30, maxSessionBytes: 1 << 30 });
    const { up, proxy } = await start('balanced', store, WINDOW);
    const turns = writeTurns(30, 70);
    for (let t = 1; t <= turns.length; t++) {
      await post(proxy.url, 'anthropic', turns.slice(0, t), 'inputs-guard');
      const seen = up.seen.at(-1);
      const truth = up.inputTokens?.(seen?.body ?? Buffer.alloc(0)) ?? 0;
      expect(truth, `turn ${t}`).toBeLessThanOrEqual(WINDOW - 1024);
      await expectRecallable(callArguments('anthropic', seen?.json), turns, store);
    }
    const guard = proxy.stats.windowGuard;
    expect(guard.cleared).toBeGreaterThan(0);
    expect(guard.unfit).toBe(0);
    // Results are one line each: only clearing inputs could make these requests fit.
    expect(guard.masked + guard.collapsed).toBe(0);
    // The newest 10 calls are never cleared.
    const last = callArguments('anthropic', up.seen.at(-1)?.json);
    expect(last.slice(-10).every((a) => !a.content?.startsWith(INPUT_CLEARED_PREFIX))).toBe(true);
  });
});
