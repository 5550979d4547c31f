import { createServer, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../engine/config.js';
import { mcpHttpHandler } from '../../mcp/server/http.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { stash } from '../../store/stash.js';
import { BROWSER_MISSING, launchChromium } from '../../test-support/chromium.js';
import { listenOnLoopback } from '../../test-support/loopback.js';
import { startUpstream, type TestUpstream } from '../../test-support/upstream.js';
import { type RunningProxy, startProxy } from '../server.js';

// A page in the user's browser is not the user's client: whatever its origin or the name it
// reaches the proxy by, it gets nothing, and nothing it sends is read, forwarded or stashed.

const bigLog = Array.from({ length: 4000 }, (_, i) => `step ${i}: compiled module_${i}.c`).join('\n');
const message = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 5,
  messages: [
    { role: 'user', content: 'build' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: bigLog }] },
  ],
});

/** Every route: path, method, and a body where it takes one. */
const ROUTES = [
  { path: '/healthz', method: 'GET' },
  { path: '/', method: 'GET' },
  { path: '/stats', method: 'GET' },
  { path: '/metrics', method: 'GET' },
  { path: '/dashboard.json', method: 'GET' },
  { path: '/expand?id=ID', method: 'GET' },
  { path: '/mcp', method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
  { path: '/v1/messages', method: 'POST', body: message },
  { path: '/v1/chat/completions', method: 'POST', body: '{"model":"gpt-5","messages":[]}' },
  { path: '/v1/responses', method: 'POST', body: '{"model":"gpt-5","input":[]}' },
  { path: '/v1beta/models/gemini-2.5-pro:generateContent', method: 'POST', body: '{"contents":[]}' },
  { path: '/v1/models', method: 'GET' },
];

let upstream: TestUpstream;
let proxy: RunningProxy;
const store = new MemoryStore();
let id = '';

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startProxy({
    config: resolveEngineConfig(),
    store,
    port: 0,
    allowHosts: ['devbox.lan'],
    upstreams: { anthropic: upstream.url, openai: upstream.url, gemini: upstream.url },
    mcp: mcpHttpHandler(store),
    log: () => {},
  });
  id = await stash(store, 'the user’s own output');
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** A raw request with exactly these headers (fetch would set Host and Origin itself). */
function send(path: string, method: string, headers: Record<string, string>, body?: string) {
  const port = new URL(proxy.url).port;
  return new Promise<{ status: number; text: string }>((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: path.replace('ID', id), method, headers });
    req.on('response', async (res) => {
      let text = '';
      for await (const c of res) text += c;
      done({ status: res.statusCode ?? 0, text });
    });
    req.on('error', fail);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json', 'x-api-key': 'k' };
const stashed = async () => (await store.list('pruned')).length;

describe('a proxy only its user can reach', () => {
  it('refuses a Host that is not one of its names, on every route, before reading or forwarding anything', async () => {
    const port = new URL(proxy.url).port;
    const before = { seen: upstream.seen.length, stashed: await stashed() };
    for (const route of ROUTES) {
      const r = await send(route.path, route.method, { ...json, host: `evil.example:${port}` }, route.body);
      expect(r.status, route.path).toBe(403);
      expect(r.text, route.path).toContain('is not an address of this proxy');
      expect(r.text).not.toContain('the user’s own output');
    }
    expect(upstream.seen.length).toBe(before.seen);
    expect(await stashed()).toBe(before.stashed);
  });

  it('answers its own names: localhost, 127.0.0.1, [::1], and a name given with --allow-host', async () => {
    const port = new URL(proxy.url).port;
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `DevBox.lan:${port}`,
      'localhost',
    ]) {
      expect((await send('/stats', 'GET', { host })).status, host).toBe(200);
      expect((await send('/v1/messages', 'POST', { ...json, host }, message)).status, host).toBe(200);
    }
  });

  it("refuses a browser's request from another page (Origin, Sec-Fetch-Site), and a model request that is not JSON", async () => {
    const port = new URL(proxy.url).port;
    const host = `127.0.0.1:${port}`;
    const before = { seen: upstream.seen.length, stashed: await stashed() };
    for (const route of ROUTES) {
      for (const headers of [
        { origin: 'https://evil.example' } as Record<string, string>,
        { origin: 'null' },
        { origin: `http://127.0.0.1:${Number(port) + 1}` },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ]) {
        const r = await send(route.path, route.method, { ...json, host, ...headers }, route.body);
        expect(r.status, `${route.path} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    // What a page can post without asking first: text/plain, a form.
    for (const type of [
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ])
      for (const route of ROUTES.filter((r) => r.method === 'POST'))
        expect(
          (await send(route.path, 'POST', { host, 'content-type': type }, route.body)).status,
          type,
        ).toBe(403);
    expect(upstream.seen.length).toBe(before.seen);
    expect(await stashed()).toBe(before.stashed);
    // The dashboard from its own address: same-origin, and a page the user typed in.
    const fromItself: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin', origin: `http://${host}` },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of fromItself)
      expect((await send('/dashboard.json', 'GET', { host, ...headers })).status).toBe(200);
  });

  it.skipIf(BROWSER_MISSING)(
    `in headless Chromium, a page of another site and a page under a rebound name get nothing and stash nothing${BROWSER_MISSING ? ` (skipped: ${BROWSER_MISSING})` : ''}`,
    async () => {
      const port = Number(new URL(proxy.url).port);
      const page = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>a site</title>');
      });
      const site = await listenOnLoopback(page);
      // evil.example resolves to this machine, as DNS rebinding makes it.
      const browser = await launchChromium(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
      try {
        const before = { seen: upstream.seen.length, stashed: await stashed() };
        const tab = await browser.newPage();
        // 1. Another site posts without asking first (no-cors, text/plain), and reads what it can.
        await tab.goto(`http://evil.example:${new URL(site.url).port}/`);
        const cross = await tab.evaluate(
          async ({ base, routes, idValue }: { base: string; routes: typeof ROUTES; idValue: string }) => {
            const out: string[] = [];
            for (const r of routes) {
              const url = base + r.path.replace('ID', idValue);
              await fetch(url, { method: r.method, mode: 'no-cors', body: r.body }).catch(() => {});
              const read = await fetch(url, { method: r.method, body: r.body }).then(
                (res) => res.text(),
                () => 'blocked',
              );
              out.push(read);
            }
            return out;
          },
          { base: `http://127.0.0.1:${port}`, routes: ROUTES, idValue: id },
        );
        for (const text of cross) expect(text).not.toContain('the user’s own output');
        // 2. A page served under a name rebound to the proxy: same origin for the browser.
        await tab.goto(`http://evil.example:${port}/healthz`).catch(() => {});
        const rebound = await tab.evaluate(
          async ({ routes, idValue }: { routes: typeof ROUTES; idValue: string }) => {
            const out: { path: string; status: number; text: string }[] = [];
            for (const r of routes) {
              const res = await fetch(r.path.replace('ID', idValue), {
                method: r.method,
                body: r.body,
                headers: { 'content-type': 'application/json' },
              });
              out.push({ path: r.path, status: res.status, text: await res.text() });
            }
            return out;
          },
          { routes: ROUTES, idValue: id },
        );
        for (const r of rebound) {
          expect(r.status, r.path).toBe(403);
          expect(r.text).not.toContain('the user’s own output');
        }
        expect(upstream.seen.length, 'nothing reached the model API').toBe(before.seen);
        expect(await stashed(), 'nothing was stashed').toBe(before.stashed);
        // The dashboard, opened from its own address, still works.
        await tab.goto(`${proxy.url}/`);
        const own = await tab.evaluate(async () => (await fetch('/dashboard.json')).status);
        expect(own).toBe(200);
      } finally {
        await browser.close();
        await site.close();
      }
    },
    60_000,
  );
});
