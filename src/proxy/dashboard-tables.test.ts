import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, resolveEngineConfig } from '../engine/config.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { BROWSER_MISSING, launchChromium } from '../test-support/chromium.js';
import { type ScriptedModel, startScriptedModel } from '../test-support/scripted-model.js';
import { type RunningProxy, startProxy } from './server.js';

const RECALL = 'recall-secret-0123456789';
const ERROR = 'src/pay.c:88:3: error: expected ";" before "}" token';
// biome-ignore lint/suspicious/noExplicitAny: what playwright runs in the page (no DOM typings here)
type Page = { document: any };
type Json = Record<string, unknown>;

/**
 * The agent's calls: eight small edits, two long build logs with an error deep inside (collapsed,
 * their originals stashed), two edits, two listings of a few hundred tokens, two long logs
 * again. With mask keeping the 2 newest in batches of 2, the twelfth result makes the two logs
 * due and masking them pays (little follows them, and a conversation this long is expected to
 * go on); the listings come due with two logs after them, which a rewrite would write to the
 * cache again: they wait. So every column of every table gets a value from real traffic.
 */
const CALLS = [
  ...Array<string>(8).fill('Edit'),
  'Bash',
  'Bash',
  'Edit',
  'Edit',
  'Grep',
  'Grep',
  'Bash',
  'Bash',
];
function output(call: number): string {
  if (CALLS[call] === 'Edit') return `The file src/pay_${call}.c has been updated.`;
  if (CALLS[call] === 'Grep')
    return Array.from(
      { length: 40 },
      (_, i) => `src/m${call}_${i}.c:${i}: amount_${i} = total_${i} * rate;`,
    ).join('\n');
  return Array.from({ length: 1000 }, (_, i) =>
    i === 700 ? ERROR : `[call ${call}] step ${i}: compiled module_${i}.c in ${i % 70} ms`,
  ).join('\n');
}

describe.skipIf(BROWSER_MISSING)('the dashboard fed by an agent through the proxy', () => {
  let model: ScriptedModel;
  let proxy: RunningProxy;

  beforeAll(async () => {
    model = await startScriptedModel((turn) => {
      const done = turn.lastOutput ? Number(turn.lastOutput.callId.slice(1)) + 1 : 0;
      const name = CALLS[done];
      return name
        ? { kind: 'call', callId: `c${done}`, name, input: { call: done } }
        : { kind: 'answer', text: 'fixed' };
    });
    proxy = await startProxy({
      config: resolveEngineConfig({
        // balanced, its mask in batches small enough for a conversation of 16 calls.
        stages: PRESETS.balanced.map((s) =>
          (s as Json).name === 'mask' ? { name: 'mask', keepRecent: 2, batch: 2 } : s,
        ),
      }),
      store: new MemoryStore(),
      port: 0,
      upstreams: { anthropic: model.url },
      recallToken: { token: RECALL },
      log: () => {},
    });
    // The agent: each tool call answered with its output, until the model answers.
    const messages: Json[] = [{ role: 'user', content: 'fix the build' }];
    for (let turn = 0; turn <= CALLS.length; turn++) {
      const res = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system: 'an agent', messages }),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { content: Json[]; stop_reason: string };
      if (answer.stop_reason !== 'tool_use') break;
      const call = answer.content[0] as { id: string; input: { call: number } };
      messages.push({ role: 'assistant', content: answer.content });
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: output(call.input.call) }],
      });
    }
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await model?.close();
  });

  // biome-ignore lint/suspicious/noExplicitAny: /dashboard.json read field by field
  const data = async (): Promise<any> =>
    (await fetch(`${proxy.url}/dashboard.json`, { headers: { 'x-spillway-token': RECALL } })).json();

  it('every table has a header for each cell, each column a value, the sessions their rewrites, waiting and banked (needs chromium and playwright-core)', async () => {
    const savings = (await data()).stats.savings;
    const [session, row] = Object.entries(savings.bySession)[0] as [string, Json];
    // The traffic reached what the columns show: a rewrite made, results waiting, savings banked.
    expect(row).toMatchObject({ requests: CALLS.length + 1 });
    expect(row.rewrites).toBeGreaterThan(0);
    expect(row.waiting).toBeGreaterThan(0);
    expect(row.bankedUsd).toBeGreaterThan(0);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${proxy.url}/#token=${RECALL}`);
      await page.waitForSelector('#sessions tbody tr');
      const tables: { id: string; headers: string[]; rows: string[][] }[] = await page.evaluate(() =>
        [...(globalThis as unknown as Page).document.querySelectorAll('table')].map(
          // biome-ignore lint/suspicious/noExplicitAny: the page's elements
          (t: any) => ({
            id: t.id,
            // biome-ignore lint/suspicious/noExplicitAny: the page's elements
            headers: [...t.querySelectorAll('thead th')].map((th: any) => th.textContent.trim()),
            // biome-ignore lint/suspicious/noExplicitAny: the page's elements
            rows: [...t.querySelectorAll('tbody tr')].map((tr: any) =>
              // biome-ignore lint/suspicious/noExplicitAny: the page's elements
              [...tr.cells].map((td: any) => td.textContent.trim()),
            ),
          }),
        ),
      );
      expect(tables.map((t) => t.id)).toEqual(['tools', 'sessions', 'recent']);
      for (const t of tables) {
        expect(t.rows.length, t.id).toBeGreaterThan(0);
        for (const cells of t.rows) {
          expect(cells, `${t.id}: ${t.headers.join(' | ')}`).toHaveLength(t.headers.length);
          for (const c of cells) expect(c, `${t.id}: ${cells.join(' | ')}`).not.toBe('');
        }
      }
      // Each cell under the header that names it.
      const byHeader = (id: string, r: number) => {
        const t = tables.find((x) => x.id === id);
        return Object.fromEntries(t?.headers.map((h, i) => [h, t.rows[r]?.[i]]) ?? []);
      };
      const n = (x: number) => Math.round(x).toLocaleString('en-US');
      expect(byHeader('sessions', 0)).toEqual({
        session,
        requests: String(row.requests),
        before: n(row.before as number),
        after: n(row.after as number),
        saved: expect.stringMatching(/^\d+\.\d%$/),
        rewrites: String(row.rewrites),
        waiting: String(row.waiting),
        banked: `$${(row.bankedUsd as number).toFixed(4)}`,
      });
      const bash = savings.byTool.Bash;
      expect(byHeader('tools', 0)).toEqual({
        tool: 'Bash',
        before: n(bash.before),
        after: n(bash.after),
        saved: expect.stringMatching(/^\d+\.\d%$/),
      });
      expect(tables.find((t) => t.id === 'tools')?.rows.map((r) => r[0])).toEqual(['Bash', 'Grep', 'Edit']);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('opens a decision at the error its collapse kept, in what the model saw and in the original, not at line 1 (needs chromium and playwright-core)', async () => {
    const recent: { stages: string[]; view: string; kept?: number; keptLine?: number }[] = (await data())
      .stats.savings.recent;
    const index = recent.findIndex((d) => d.stages.includes('collapse'));
    const decision = recent[index];
    expect(decision?.view.split('\n')[decision?.kept ?? -1]).toBe(ERROR);
    // The error is line 701 of each log.
    expect(decision?.keptLine).toBe(output(8).split('\n').indexOf(ERROR) + 1);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(`${proxy.url}/#token=${RECALL}`);
      await page.waitForSelector('#recent tbody tr');
      // The page lists the newest first.
      await page.click(`#recent tbody tr:nth-child(${recent.length - index})`);
      await page.waitForSelector('#view .kept');
      await page.waitForSelector('#original .kept');
      const where = await page.evaluate(() =>
        ['#view', '#original'].map((pane) => {
          const pre = (globalThis as unknown as Page).document.querySelector(pane);
          const kept = pre.querySelector('.kept');
          const [p, k] = [pre.getBoundingClientRect(), kept.getBoundingClientRect()];
          return {
            text: kept.textContent,
            // Where the line sits in the pane's text: below what a pane opened at its top shows.
            offscreenAtTop: k.bottom - p.top + pre.scrollTop > pre.clientHeight,
            shown: k.top >= p.top && k.bottom <= p.top + pre.clientHeight,
          };
        }),
      );
      expect(where).toEqual([
        { text: ERROR, offscreenAtTop: true, shown: true },
        // The original's lines around it, numbered as /expand numbers them.
        { text: `${decision?.keptLine}:${ERROR}`, offscreenAtTop: true, shown: true },
      ]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
