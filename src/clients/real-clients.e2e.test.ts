import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../store/file-store.js';
import { recallAll } from '../store/recall.js';
import { type ClientKey, clientBinary, PINNED_CLIENTS } from '../test-support/client-install.js';
import {
  buildCli,
  HEADLESS_ENV,
  runClient,
  startCliProxy,
  userMachine,
} from '../test-support/real-clients.js';
import {
  type ModelStep,
  type ModelTurn,
  startScriptedModel,
  turnOf,
} from '../test-support/scripted-model.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';

// The case spillway exists for, with the real clients as users install them, each set up by
// `spillway setup CLIENT --proxy URL` alone: a shell command prints far more than the client's
// own cut (Claude Code: 30,000 characters; Codex: about 10,000 tokens; Gemini CLI: 40,000
// characters) with the one line that matters in the middle or at the end. The scripted model
// runs it, greps the marker's id through spillway_expand, and answers. The model must see the
// error line in the result, the grep must find it in the stash, and the stash must be the
// command's real output byte for byte (not a client's truncation).

interface OutputCase {
  name: string;
  file: string;
  source: string;
  /** The line the agent needs, and a pattern that finds it in the original. */
  needle: string;
  grep: string;
}

const BUILD_ERROR = "src/cart.c:412:9: error: use of undeclared identifier 'totl'";
const OUTPUTS: OutputCase[] = [
  {
    name: 'a 6,000-line, 650 KB build log with one error at line 3,100',
    file: 'build-log.js',
    needle: BUILD_ERROR,
    grep: 'error:',
    source: `for (let i = 1; i <= 6000; i++) console.log(i === 3100 ? ${JSON.stringify(BUILD_ERROR)} : '[' + String(i).padStart(4, '0') + '/6000] CC build/obj/module_' + (i % 97) + '/file_' + i + '.o -O2 -Wall -fPIC -Iinclude -Ithird_party/zlib -DNDEBUG -g');`,
  },
  {
    name: 'a 200 KB one-line JSON answer with one error item in the middle',
    file: 'api-answer.js',
    needle: 'payment declined: card expired 2026-11',
    grep: 'card_declined',
    source: `const items = [];
for (let i = 1; i <= 2100; i++)
  items.push(i === 1050
    ? { id: 1050, sku: 'SKU-001050', status: 'error', error: { code: 'card_declined', message: 'payment declined: card expired 2026-11' } }
    : { id: i, sku: 'SKU-' + String(i).padStart(6, '0'), status: 'ok', amount: (i * 37) % 1000, currency: 'EUR', warehouse: 'wh-' + (i % 7) });
process.stdout.write(JSON.stringify({ object: 'list', count: items.length, items }) + '\\n');`,
  },
  {
    name: 'a 30 MB output with the error on its last line',
    file: 'huge.js',
    needle: 'FATAL: migration 0042_orders failed: relation "orders_v2" already exists',
    grep: 'FATAL',
    source: `const line = (i) => 'INFO row ' + i + ' copied to shard ' + (i % 16) + ' checksum ' + ((i * 2654435761) % 4294967296).toString(16) + ' in 3ms\\n';
let chunk = '';
for (let i = 1; i <= 400000; i++) { chunk += line(i); if (chunk.length > 1 << 16) { process.stdout.write(chunk); chunk = ''; } }
process.stdout.write(chunk + 'FATAL: migration 0042_orders failed: relation "orders_v2" already exists\\n');`,
  },
];

type Json = Record<string, unknown>;

interface ClientRun {
  key: ClientKey;
  label: string;
  api: ModelTurn['api'];
  /** The tool whose presence marks the agent loop's requests (not the client's side requests). */
  loopTool: string;
  /** spillway_expand as the model is offered it, when the client lists it among the tools. */
  recallTool?: string;
  /** The model's call that runs a shell command, and the one that greps a recall id. */
  run: (cmd: string) => ModelStep;
  grep: (id: string, pattern: string) => ModelStep;
  args: (prompt: string) => string[];
}

const call = (name: string, input: Json, callId: string, namespace?: string): ModelStep => ({
  kind: 'call',
  callId,
  name,
  input,
  ...(namespace ? { namespace } : {}),
});

const CLAUDE = (key: ClientKey): ClientRun => ({
  key,
  label: `Claude Code ${clientVersion(key)}`,
  api: 'anthropic',
  loopTool: 'Bash',
  // Claude Code 2.1.3xx defers MCP tools behind ToolSearch unless they ask to be always loaded.
  recallTool: 'mcp__spillway__spillway_expand',
  run: (command) => call('Bash', { command, description: 'run it' }, 'call_run'),
  grep: (id, grep) => call('mcp__spillway__spillway_expand', { id, grep }, 'call_grep'),
  args: (prompt) => ['-p', prompt, '--allowedTools', 'Bash', 'mcp__spillway__spillway_expand'],
});

const CODEX: ClientRun = {
  key: 'codex',
  label: `Codex ${clientVersion('codex')} -m gpt-5`,
  api: 'openai-responses',
  loopTool: 'exec_command',
  recallTool: 'mcp__spillway:spillway_expand',
  run: (cmd) => call('exec_command', { cmd }, 'call_run'),
  grep: (id, grep) => call('spillway_expand', { id, grep }, 'call_grep', 'mcp__spillway'),
  args: (prompt) => [
    'exec',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '-m',
    'gpt-5',
    prompt,
  ],
};

// With no -m, Codex's default model gets "responses-lite": its tools in an `additional_tools`
// input item, and one JavaScript `exec` tool that calls the others (tools.exec_command,
// tools.mcp__spillway__spillway_expand); outputs come back as custom_tool_call_output.
const CODEX_DEFAULT_MODEL: ClientRun = {
  ...CODEX,
  label: `Codex ${clientVersion('codex')}, its default model (responses-lite)`,
  loopTool: 'functions:exec',
  recallTool: undefined, // a nested tool of exec, listed in its description
  run: (cmd) => ({
    kind: 'custom',
    callId: 'call_run',
    name: 'exec',
    input: `const r = await tools.exec_command({ cmd: ${JSON.stringify(cmd)} });\ntext(r.output);`,
  }),
  grep: (id, grep) => ({
    kind: 'custom',
    callId: 'call_grep',
    name: 'exec',
    input: `const r = await tools.mcp__spillway__spillway_expand(${JSON.stringify({ id, grep })});\ntext(r.content.map((c) => c.text).join('\\n'));`,
  }),
  args: (prompt) => ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt],
};

// Codex's own sandbox, as users run it (workspace-write, bubblewrap): the hook's spillway run
// and the command it wraps run inside it.
const CODEX_SANDBOXED: ClientRun = {
  ...CODEX,
  label: `Codex ${clientVersion('codex')} -m gpt-5 in its workspace-write sandbox`,
  args: (prompt) => ['exec', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-m', 'gpt-5', prompt],
};

const GEMINI: ClientRun = {
  key: 'gemini',
  label: `Gemini CLI ${clientVersion('gemini')}`,
  api: 'gemini',
  loopTool: 'run_shell_command',
  recallTool: 'mcp_spillway_spillway_expand',
  run: (command) => call('run_shell_command', { command, description: 'run it' }, 'call_run'),
  grep: (id, grep) => call('mcp_spillway_spillway_expand', { id, grep }, 'call_grep'),
  args: (prompt) => ['-p', prompt, '--yolo'],
};

function clientVersion(key: ClientKey): string {
  const b = clientBinary(key);
  return 'version' in b ? b.version : '(not installed)';
}

/** The agent: run the command, grep the marker's id for the needle, answer with what it found. */
function agentScript(client: ClientRun, current: () => OutputCase) {
  return (turn: ModelTurn): ModelStep => {
    if (!turn.tools.includes(client.loopTool)) return { kind: 'answer', text: 'ok' }; // side requests
    const out = turn.lastOutput;
    if (!out) return client.run(`node ${current().file}`);
    if (out.callId === 'call_run') {
      const id = markerIds(out.text)[0];
      if (!id) return { kind: 'answer', text: 'NO MARKER: the result was not shortened' };
      return client.grep(id, current().grep);
    }
    return { kind: 'answer', text: 'FINAL: found it' };
  };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const RUNS = [
  CLAUDE('claude'),
  CLAUDE('claude-2.1.197'),
  CODEX,
  CODEX_SANDBOXED,
  CODEX_DEFAULT_MODEL,
  GEMINI,
].map((client) => ({
  client,
  binary: clientBinary(client.key),
}));

beforeAll(() => {
  if (RUNS.some((r) => 'path' in r.binary)) buildCli();
}, 120_000);

describe.each(RUNS)(
  '$client.label set up by spillway setup, outputs past its own cut',
  ({ client, binary }) => {
    if ('missing' in binary) {
      it.skip(`skipped: ${binary.missing}`, () => {});
      return;
    }
    it('the model sees the error line, grep finds it in the byte-exact original, undo restores the files', async () => {
      const { bin } = PINNED_CLIENTS[client.key];
      let current = OUTPUTS[0] as OutputCase;
      const model = await startScriptedModel(agentScript(client, () => current));
      const machine = userMachine({ [bin]: binary.path });
      const proxy = await startCliProxy(machine.env, model.url);
      try {
        const setup = spawnSync('spillway', ['setup', bin, '--proxy', proxy.url], {
          env: machine.env,
          encoding: 'utf8',
        });
        expect(setup.status, setup.stderr).toBe(0);
        const env = { ...machine.env, ...HEADLESS_ENV[bin] };
        const store = new FileStore({ base: join(machine.home, '.spillway/tool-results') });
        const o200k = getTokenizer('o200k');
        for (const output of OUTPUTS) {
          current = output;
          writeFileSync(join(machine.project, output.file), output.source);
          const real = spawnSync(process.execPath, [output.file], {
            cwd: machine.project,
            maxBuffer: 1 << 30,
          }).stdout;
          const from = model.seen.length;
          const run = await runClient(bin, client.args(`run ${output.file} and find what failed`), {
            env,
            cwd: machine.project,
            timeoutMs: 240_000,
          });
          expect(run.code, `${output.name}: ${run.stderr.slice(-2000)}`).toBe(0);
          expect(run.stdout, output.name).toContain('FINAL: found it');
          const turns = model.seen
            .slice(from)
            .filter((s) => s.json && Object.keys(s.json).length > 0)
            .map((s) => turnOf(client.api, s.json as Json));
          if (client.recallTool)
            expect(
              turns.filter((t) => t.tools.includes(client.loopTool))[0]?.tools,
              'spillway_expand is offered, not deferred',
            ).toContain(client.recallTool);
          const ran = turns.find((t) => t.lastOutput?.callId === 'call_run')?.lastOutput?.text ?? '';
          const grepped = turns.find((t) => t.lastOutput?.callId === 'call_grep')?.lastOutput?.text ?? '';
          expect(ran, `${output.name}: what the model saw of the command`).toContain(output.needle);
          expect(o200k.count(ran), output.name).toBeLessThanOrEqual(2100);
          expect(grepped, `${output.name}: the grep through spillway_expand`).toContain(output.needle);
          if (process.env.SPILLWAY_TEST_VERBOSE)
            console.log(JSON.stringify(ran.slice(-400)), o200k.count(ran));
          const id = markerIds(ran)[0] as string;
          const original = await recallAll(id, { store });
          expect(original.length, `${output.name}\n${ran.slice(0, 3000)}`).toBe(real.length);
          expect(sha(original), `${output.name}: the stash is the command's own output`).toBe(sha(real));
        }
        const undo = spawnSync('spillway', ['setup', bin, '--undo'], {
          env: machine.env,
          encoding: 'utf8',
        });
        expect(undo.status, undo.stderr).toBe(0);
        for (const line of undo.stdout.trim().split('\n')) {
          const path = line.slice(0, line.indexOf(': '));
          let text = '';
          try {
            text = readFileSync(path, 'utf8');
          } catch {}
          expect(text, path).not.toMatch(
            /hook (claude|codex|gemini)|mcp_servers\.spillway|"spillway"|spillway setup/,
          );
        }
      } finally {
        await proxy.close();
        await model.close();
      }
    }, 900_000);
  },
);
