import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../providers/index.js';
import { FileStore } from '../store/backends/file-store.js';
import { recallAll } from '../store/recall/recall.js';
import { startUpstream } from '../test-support/upstream.js';
import { textOf } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';

const CLI = resolve(import.meta.dirname, '../cli.ts');

const body = (content: string) => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content }] },
  ],
});

describe('the proxy killed with SIGKILL at any moment', () => {
  it('never leaves a marker upstream whose original cannot be recalled', async () => {
    const upstream = await startUpstream();
    try {
      for (let round = 0; round < 3; round++) {
        const home = mkdtempSync(join(tmpdir(), 'sw-crash-'));
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', CLI, 'proxy', '--port', '0', '--anthropic-upstream', upstream.url, '--quiet'],
          { env: { ...process.env, SPILLWAY_HOME: home }, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const url = await new Promise<string>((done) => {
          let out = '';
          child.stdout.on('data', (c) => {
            out += c;
            const m = /listening on (\S+)/.exec(out);
            if (m?.[1]) done(m[1]);
          });
        });
        const originals = new Map<string, string>();
        let n = 0;
        let answered = 0;
        const client = async () => {
          for (;;) {
            const k = `${round}-${n++}`;
            const original = Array.from({ length: 4000 }, (_, i) => `run ${k} line ${i}: ok`).join('\n');
            originals.set(k, original);
            try {
              const res = await fetch(`${url}/v1/messages`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-spillway-session': `crash-${k}` },
                body: JSON.stringify(body(original)),
              });
              await res.arrayBuffer();
              answered++;
            } catch {
              return; // the proxy is gone
            }
          }
        };
        const clients = [client(), client(), client()];
        // The kill comes at a random moment once the proxy is in full swing: after its first
        // answer (its modules load on the first request), so a slow machine still tests it.
        for (let waited = 0; answered === 0 && waited < 60_000; waited += 20)
          await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, Math.random() * 1200));
        child.kill('SIGKILL');
        await Promise.all(clients);
        // Every marker that reached the upstream names an original that is in the store, whole.
        const store = new FileStore({ base: join(home, 'tool-results') });
        let markers = 0;
        for (const seen of upstream.seen.splice(0)) {
          for (const result of ADAPTERS.anthropic.view(seen.json)?.results ?? []) {
            const text = textOf(result.content) ?? '';
            const k = /run (\S+) line/.exec(text)?.[1] as string;
            for (const id of markerIds(text)) {
              markers++;
              expect((await recallAll(id, { store })).toString('utf8')).toBe(originals.get(k));
            }
          }
        }
        expect(markers, `round ${round}: some requests went through before the kill`).toBeGreaterThan(0);
      }
    } finally {
      await upstream.close();
    }
  }, 60_000);
});
