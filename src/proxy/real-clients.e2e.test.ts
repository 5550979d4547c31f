import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../store/backends/file-store.js';
import { recallAll } from '../store/recall/recall.js';
import {
  buildCli,
  clientBinary,
  DOC_URL,
  docBlock,
  docLine,
  HEADLESS_ENV,
  runClient,
  startCliProxy,
  startTap,
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

// The real Claude Code, Codex and Gemini CLI, installed from npm (npm run clients) and set up with
// the lines of docs/clients.md, run through `spillway proxy` against a scripted model API. The model
// runs a command that prints 1,500 lines with one error in them, recalls the shortened result
// through the client's own MCP registration of `spillway_expand`, then answers. A recording tap
// between the client and spillway shows what the client sent.

const ERROR_LINE = 'ERROR: disk quota exceeded on /var/lib/build';
const PROGRAM = `node -e "for (let i = 1; i <= 1500; i++) console.log(i === 1200 ? '${ERROR_LINE}' : 'step ' + i + ' ok')"`;
const PROMPTS = ['print the build log and find the error', 'run the build log again and tell me what failed'];
const BUDGET = 2000; // the balanced preset's collapse budget, in tokens

type Json = Record<string, unknown>;

interface ClientCase {
  bin: string;
  api: ModelTurn['api'];
  shell: { name: string; input: (cmd: string) => Json };
  expand: { name: string; namespace?: string };
  /** How the client shows a tool's text to the model (Gemini CLI escapes closing tags it wraps with). */
  shows?: (text: string) => string;
  /** Runs the setup docs/clients.md gives for a proxy at `url`; returns the environment for the runs. */
  setup(machine: ReturnType<typeof userMachine>, url: string): Promise<NodeJS.ProcessEnv>;
  args(prompt: string): string[];
}

const CLAUDE_CODE: ClientCase = {
  bin: 'claude',
  api: 'anthropic',
  shell: { name: 'Bash', input: (command) => ({ command, description: 'print the build log' }) },
  expand: { name: 'mcp__spillway__spillway_expand' },
  async setup(machine, url) {
    const [command, ...args] = docLine('claude mcp add spillway -- spillway mcp').split(' ');
    const add = await runClient(command as string, args, { env: machine.env, cwd: machine.project });
    expect(add.code, add.stderr).toBe(0);
    const baseUrl = /^ANTHROPIC_BASE_URL=(\S+) claude$/.exec(docLine('ANTHROPIC_BASE_URL='))?.[1];
    expect(baseUrl).toBe(DOC_URL);
    return {
      ...machine.env,
      ANTHROPIC_BASE_URL: (baseUrl as string).replace(DOC_URL, url),
      ...HEADLESS_ENV.claude,
    };
  },
  args: (prompt) => ['-p', prompt, '--allowedTools', 'Bash', 'mcp__spillway__spillway_expand'],
};

const CODEX: ClientCase = {
  bin: 'codex',
  api: 'openai-responses',
  shell: { name: 'exec_command', input: (cmd) => ({ cmd, max_output_tokens: 20_000 }) },
  expand: { name: 'spillway_expand', namespace: 'mcp__spillway' },
  async setup(machine, url) {
    const config = [
      docBlock('toml', '[model_providers.spillway]').replace(DOC_URL, url),
      docBlock('toml', '[mcp_servers.spillway]'),
    ].join('\n');
    mkdirSync(join(machine.home, '.codex'));
    writeFileSync(join(machine.home, '.codex/config.toml'), config);
    return { ...machine.env, ...HEADLESS_ENV.codex };
  },
  args: (prompt) => [
    'exec',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '-m',
    'gpt-5',
    prompt,
  ],
};

const GEMINI: ClientCase = {
  bin: 'gemini',
  api: 'gemini',
  shell: { name: 'run_shell_command', input: (command) => ({ command, description: 'print the build log' }) },
  expand: { name: 'mcp_spillway_spillway_expand' },
  // Gemini CLI wraps every tool output in <untrusted_context> and escapes that closing tag inside it.
  shows: (text) => text.replaceAll('</untrusted_context>', '&lt;/untrusted_context&gt;'),
  async setup(machine, url) {
    mkdirSync(join(machine.home, '.gemini'));
    writeFileSync(join(machine.home, '.gemini/settings.json'), docBlock('json', '"mcpServers"'));
    const baseUrl = /^GOOGLE_GEMINI_BASE_URL=(\S+) gemini$/.exec(docLine('GOOGLE_GEMINI_BASE_URL='))?.[1];
    expect(baseUrl).toBe(DOC_URL);
    return {
      ...machine.env,
      GOOGLE_GEMINI_BASE_URL: (baseUrl as string).replace(DOC_URL, url),
      ...HEADLESS_ENV.gemini,
    };
  },
  args: (prompt) => ['-p', prompt, '--yolo'],
};

/** The agent the scripted model plays: run, recall what spillway shortened, answer. */
function agentScript(client: ClientCase) {
  return (turn: ModelTurn): ModelStep => {
    if (!turn.tools.includes(client.shell.name)) return { kind: 'answer', text: 'ok' }; // side requests
    const out = turn.lastOutput;
    if (!out)
      return {
        kind: 'call',
        callId: 'call_run',
        name: client.shell.name,
        input: client.shell.input(PROGRAM),
      };
    if (out.callId === 'call_run') {
      const id = markerIds(out.text)[0];
      if (!id) return { kind: 'answer', text: 'NO MARKER: the result was not shortened' };
      return { kind: 'call', callId: 'call_recall', ...client.expand, input: { id, max_tokens: 32_000 } };
    }
    return { kind: 'answer', text: 'FINAL: recalled' };
  };
}

const itemsOf = (body: Json) => (body.messages ?? body.input ?? body.contents) as Json[];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isAgentLoop = (client: ClientCase) => (body: Json) =>
  turnOf(client.api, body).tools.includes(client.shell.name);

/**
 * What the model saw of one conversation: the command's result shortened to the budget with
 * the error line kept and a recall id; the client's MCP recall returning the stashed original
 * exactly; nothing changed but shortened results; and every item the client resent unchanged
 * went up byte-identical to the turn before (the provider's cached prefix holds).
 */
async function checkConversation(client: ClientCase, sent: Json[], upstream: Json[], home: string) {
  const turns = upstream.map((body) => turnOf(client.api, body));
  const ran = turns.find((t) => t.lastOutput?.callId === 'call_run')?.lastOutput?.text ?? '';
  const recalled = turns.find((t) => t.lastOutput?.callId === 'call_recall')?.lastOutput?.text ?? '';
  const [id] = markerIds(ran);
  expect(id, `the command's result reached the model shortened:\n${ran.slice(0, 400)}`).toBeDefined();
  expect(ran).toContain(ERROR_LINE);
  const store = new FileStore({ base: join(home, '.spillway/tool-results') });
  const original = (await recallAll(id as string, { store })).toString('utf8');
  const o200k = getTokenizer('o200k');
  expect(original).toContain('step 1499 ok');
  expect(o200k.count(original)).toBeGreaterThan(BUDGET);
  expect(o200k.count(ran)).toBeLessThanOrEqual(BUDGET);
  // A whole page is the original, one newline and the footer (after the client's own header).
  const shown = client.shows?.(original) ?? original;
  expect(recalled.includes(`${shown}\n[bytes 0-`), 'the recall returned the original').toBe(true);
  // Then the footer, and nothing else but the client's own wrapper.
  expect(recalled.slice(recalled.lastIndexOf(`${shown}\n`) + shown.length + 1)).toMatch(
    /^\[[^\n]*\](\n<\/untrusted_context>)?$/,
  );

  expect(upstream.length).toBe(sent.length);
  for (let k = 0; k < sent.length; k++) {
    const [client_, up] = [sent[k] as Json, upstream[k] as Json];
    const rest = { messages: 0, input: 0, contents: 0 };
    expect(same({ ...up, ...rest }, { ...client_, ...rest })).toBe(true);
    itemsOf(up).forEach((item, i) => {
      if (!same(item, itemsOf(client_)[i])) expect(markerIds(JSON.stringify(item)).length).toBeGreaterThan(0);
    });
    if (k === 0) continue;
    const before = itemsOf(sent[k - 1] as Json);
    before.forEach((item, i) => {
      if (same(itemsOf(client_)[i], item))
        expect(same(itemsOf(up)[i], itemsOf(upstream[k - 1] as Json)[i]), `turn ${k + 1}, item ${i}`).toBe(
          true,
        );
    });
  }
}

const CASES = [CLAUDE_CODE, CODEX, GEMINI].map((client) => ({
  client,
  binary: clientBinary(client.bin as 'claude' | 'codex' | 'gemini'),
}));

beforeAll(() => {
  if (CASES.some((c) => 'path' in c.binary)) buildCli();
}, 120_000);

describe.each(CASES)(
  '$client.bin through spillway, set up by hand as docs/clients.md says',
  ({ client, binary }) => {
    if ('missing' in binary) {
      it.skip(`skipped: ${binary.missing}`, () => {});
      return;
    }
    it('runs two conversations: results collapsed, recalled exactly over MCP, one session key each', async () => {
      const model = await startScriptedModel(agentScript(client));
      const machine = userMachine({ [client.bin]: binary.path });
      const proxy = await startCliProxy(machine.env, model.url);
      const tap = await startTap(proxy.url);
      try {
        const env = await client.setup(machine, tap.url);
        const sessions: unknown[][] = [];
        for (const prompt of PROMPTS) {
          const [seenFrom, tapFrom, logFrom] = [model.seen.length, tap.seen.length, proxy.log().length];
          const run = await runClient(client.bin, client.args(prompt), { env, cwd: machine.project });
          expect(run.code, run.stderr).toBe(0);
          expect(run.stdout).toContain('FINAL: recalled');
          const posted = (seen: { url: string; json: unknown }[]) =>
            seen
              .filter((s) => /^\/v1\/(messages|responses)(\?|$)|:streamGenerateContent/.test(s.url))
              .map((s) => s.json as Json);
          const upstream = posted(model.seen.slice(seenFrom)).filter(isAgentLoop(client));
          const sent = posted(tap.seen.slice(tapFrom)).filter(isAgentLoop(client));
          expect(upstream.length).toBe(3);
          await checkConversation(client, sent, upstream, machine.home);
          sessions.push([
            ...new Set(
              proxy
                .log()
                .slice(logFrom)
                // Gemini CLI's model router asks generateContent on the side: a conversation of its own.
                .filter((l) => l.api && !String(l.path).includes(':generateContent'))
                .map((l) => l.session),
            ),
          ]);
          if (client.bin === 'codex')
            expect(tap.seen.slice(tapFrom).filter((s) => s.url !== '/v1/responses')).toEqual([]);
        }
        expect(sessions.map((s) => s.length)).toEqual([1, 1]);
        expect(sessions[0]?.[0]).not.toBe(sessions[1]?.[0]);
      } finally {
        await tap.close();
        await proxy.close();
        await model.close();
      }
    }, 300_000);
  },
);
