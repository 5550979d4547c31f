import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { BROWSER_MISSING, launchChromium } from '../test-support/chromium.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { type RunningProxy, startProxy } from './server.js';

const RECALL = 'recall-secret-0123456789';
// What playwright runs inside the page (serialized: self-contained; the test has no DOM typings).
// biome-ignore lint/suspicious/noExplicitAny: the page's document
type Page = { document: any };
const log = (tag: string) =>
  Array.from({ length: 3000 }, (_, i) => `${tag} step ${i}: compiled module_${i}.c in ${i % 70} ms`).join(
    '\n',
  );

describe('the live dashboard', () => {
  let upstream: TestUpstream;
  let proxy: RunningProxy;
  const shots = mkdtempSync(join(tmpdir(), 'spillway-dashboard-'));
  let conversation = 0;
  const post = async (tag: string) => {
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 5,
        system: `dashboard ${conversation++}`,
        messages: [
          { role: 'user', content: 'build it' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: log(tag) }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy({
      config: resolveEngineConfig(),
      store: new MemoryStore(),
      port: 0,
      upstreams: { anthropic: upstream.url },
      recallToken: { token: RECALL },
      log: () => {},
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
    rmSync(shots, { recursive: true, force: true });
  });

  it('keeps its data behind the recall token, and its page free of any', async () => {
    const page = await fetch(`${proxy.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).not.toContain(RECALL);
    expect((await fetch(`${proxy.url}/dashboard.json`)).status).toBe(401);
    const data = await fetch(`${proxy.url}/dashboard.json`, { headers: { 'x-spillway-token': RECALL } });
    expect(data.status).toBe(200);
    expect(((await data.json()) as { stash: { quota: number } }).stash.quota).toBeGreaterThan(0);
  });

  it.skipIf(BROWSER_MISSING)(
    'renders in Chromium at 1280x800 and at a phone width, updates live, shows a decision beside its original, with no console error (needs chromium and playwright-core)',
    async () => {
      await post('first');
      const browser = await launchChromium();
      try {
        const errors: string[] = [];
        const requests: string[] = [];
        // biome-ignore lint/suspicious/noExplicitAny: playwright-core loads from the pinned cache, without its types
        const watch = (page: any) => {
          page.on('console', (m: { type(): string; text(): string }) => {
            if (m.type() === 'error') errors.push(m.text());
          });
          page.on('pageerror', (e: Error) => errors.push(e.message));
          page.on('request', (r: { url(): string }) => requests.push(r.url()));
        };
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        watch(page);
        // Without the token it asks for one; typed in, the figures show.
        await page.goto(`${proxy.url}/`);
        await page.waitForSelector('#login', { state: 'visible' });
        await page.fill('#token', RECALL);
        await page.click('#login button');
        await page.waitForSelector('#main:not([hidden])');
        // The browser logs the 401 that asked for the token; from here on nothing may fail.
        expect(errors).toEqual([
          'Failed to load resource: the server responded with a status of 401 (Unauthorized)',
        ]);
        errors.length = 0;
        const text = (sel: string) => page.textContent(sel) as Promise<string>;
        expect(await text('#k-tokens b')).toMatch(/^[\d,]+ → [\d,]+$/);
        expect(await text('#k-cost small')).toMatch(/answers from provider usage/);
        expect(await page.locator('#chart rect.before').count()).toBeGreaterThan(0);
        expect(await page.locator('#chart rect.after').count()).toBe(
          await page.locator('#chart rect.before').count(),
        );
        expect(await page.locator('#recent tbody tr').count()).toBe(1);
        // Live: a new decision shows without a reload.
        const before = await text('#k-tokens b');
        await post('second');
        // (Functions, not strings: the page's policy allows no eval.)
        await page.waitForFunction(
          () => (globalThis as unknown as Page).document.querySelectorAll('#recent tbody tr').length === 2,
          null,
          { timeout: 10_000 },
        );
        expect(await text('#k-tokens b')).not.toBe(before);
        // A decision opens beside its original: the marker line highlighted, the original recalled.
        await page.click('#recent tbody tr:last-child');
        await page.waitForFunction(
          () =>
            /first step 0:/.test(
              (globalThis as unknown as Page).document.querySelector('#original')?.textContent ?? '',
            ),
          null,
          { timeout: 10_000 },
        );
        expect(await page.locator('#view mark').count()).toBeGreaterThan(0);
        expect(await text('#view')).toContain('first step 0:');
        expect(await text('#recall')).toMatch(/^spillway expand [A-Za-z0-9_-]+$/);
        const wide = await page.screenshot({ fullPage: true });
        writeFileSync(join(shots, 'dashboard-1280.png'), wide);
        expect(wide.length).toBeGreaterThan(30_000);
        // A phone: nothing wider than the screen, the panes one under the other.
        const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
        watch(phone);
        await phone.goto(`${proxy.url}/#token=${RECALL}`);
        await phone.waitForSelector('#main:not([hidden])');
        expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
        // The token left the address bar once read.
        expect(await phone.evaluate('location.hash')).toBe('');
        const narrow = await phone.screenshot({ fullPage: true });
        writeFileSync(join(shots, 'dashboard-390.png'), narrow);
        expect(narrow.length).toBeGreaterThan(20_000);
        expect(errors).toEqual([]);
        // Nothing loaded from anywhere but the proxy.
        expect(requests.every((u) => u.startsWith(proxy.url))).toBe(true);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
