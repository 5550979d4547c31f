import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../store/backends/file-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { clientBinary, pinnedBin } from '../../test-support/client-install.js';
import { buildCli, HEADLESS_ENV, runClient, userMachine } from '../../test-support/real-clients.js';
import {
  type ModelStep,
  type ModelTurn,
  startScriptedModel,
  turnOf,
} from '../../test-support/scripted-model.js';
import { markerIds } from '../../text/markers.js';
import { getTokenizer } from '../../text/tokenizers/index.js';

// A real MCP server from npm (@modelcontextprotocol/server-filesystem), registered with the
// real Claude Code by `claude mcp add` as a user would, put behind the gateway by
// `spillway setup claude --mcp files`, no proxy: the
// model reads a 2 MB log through the server and must see its error line, grep it back through
// spillway_expand, and the stash must be the file byte for byte.
const claude = clientBinary('claude');
const filesystem = pinnedBin('@modelcontextprotocol/server-filesystem');
const missing = ['missing' in claude ? claude.missing : '', 'missing' in filesystem ? filesystem.missing : '']
  .filter(Boolean)
  .join('; ');

const NEEDLE = 'FATAL: ledger 7731 out of balance by -12.50 EUR after the refund batch';
const READ = 'mcp__files__read_text_file';
// setup registers spillway's own MCP server; the wrapped one adds no second spillway_expand.
const EXPAND = 'mcp__spillway__spillway_expand';

beforeAll(() => {
  if (!missing) buildCli();
}, 120_000);

describe.skipIf(missing)(
  `Claude Code with an MCP server behind spillway gateway${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it('the model sees the error line of a 2 MB file within budget, greps it back, and the stash is the file', async () => {
      const machine = userMachine({ claude: (claude as { path: string }).path });
      const log = Array.from({ length: 40_000 }, (_, i) =>
        i === 21_000
          ? NEEDLE
          : `2026-12-02T09:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z INFO settled order ${i} in ${i % 97} ms`,
      ).join('\n');
      const file = join(machine.project, 'ledger.log');
      writeFileSync(file, log);
      expect(log.length).toBeGreaterThan(2_000_000);
      const model = await startScriptedModel((turn: ModelTurn): ModelStep => {
        if (!turn.tools.includes(READ)) return { kind: 'answer', text: 'ok' }; // side requests
        const out = turn.lastOutput;
        if (!out) return { kind: 'call', callId: 'call_read', name: READ, input: { path: file } };
        if (out.callId === 'call_read') {
          const id = markerIds(out.text)[0];
          if (!id) return { kind: 'answer', text: 'NO MARKER: the result was not shortened' };
          return { kind: 'call', callId: 'call_grep', name: EXPAND, input: { id, grep: 'FATAL' } };
        }
        return { kind: 'answer', text: 'FINAL: found it' };
      });
      try {
        const env = {
          ...machine.env,
          ...HEADLESS_ENV.claude,
          ANTHROPIC_BASE_URL: model.url,
          // Claude Code defers MCP tools behind a search; the scripted model calls them directly.
          ENABLE_TOOL_SEARCH: 'false',
        };
        // The user's server, added as the README of any MCP server says; then spillway setup puts it
        // behind the gateway.
        const add = spawnSync(
          'claude',
          ['mcp', 'add', 'files', '--', (filesystem as { path: string }).path, machine.project],
          {
            env,
            cwd: machine.project,
            encoding: 'utf8',
          },
        );
        expect(add.status, add.stderr).toBe(0);
        const setup = spawnSync('spillway', ['setup', 'claude', '--mcp', 'files'], { env, encoding: 'utf8' });
        expect(setup.status, setup.stderr).toBe(0);
        expect(setup.stdout).toContain('MCP servers through spillway gateway: files');
        const run = await runClient(
          'claude',
          ['-p', 'read ledger.log and find what failed', '--allowedTools', READ, EXPAND],
          {
            env,
            cwd: machine.project,
            timeoutMs: 240_000,
          },
        );
        expect(run.code, run.stderr.slice(-2000)).toBe(0);
        expect(run.stdout).toContain('FINAL: found it');
        const turns = model.seen
          .filter((s) => s.json && Object.keys(s.json).length > 0)
          .map((s) => turnOf('anthropic', s.json as Record<string, unknown>));
        const read = turns.find((t) => t.lastOutput?.callId === 'call_read')?.lastOutput?.text ?? '';
        const grepped = turns.find((t) => t.lastOutput?.callId === 'call_grep')?.lastOutput?.text ?? '';
        expect(read, 'what the model saw of the file').toContain(NEEDLE);
        expect(getTokenizer('o200k').count(read)).toBeLessThanOrEqual(2000);
        expect(grepped).toContain(`21001:${NEEDLE}`);
        const id = markerIds(read)[0] as string;
        const store = new FileStore({ base: join(machine.home, '.spillway/tool-results') });
        expect((await recallAll(id, { store })).equals(readFileSync(file))).toBe(true);
      } finally {
        await model.close();
      }
    }, 600_000);
  },
);
