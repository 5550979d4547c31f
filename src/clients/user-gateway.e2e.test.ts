import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientBinary, PINNED_CLIENTS } from '../test-support/client-install.js';
import {
  buildCli,
  HEADLESS_ENV,
  runClient,
  startCliProxy,
  userMachine,
} from '../test-support/real-clients.js';
import { freePort } from '../test-support/redis.js';
import { type ScriptedModel, startScriptedModel } from '../test-support/scripted-model.js';

// A user whose client talks to a gateway of their own, set up with `spillway setup CLIENT
// --proxy URL`: every request the client makes, with the user's key, must reach that gateway
// through spillway's proxy, and none any other upstream. The proxy starts as the user starts it
// (its upstream for the client's API is the one setup kept); its other upstreams point at a
// stand-in that counts what reaches it.

interface GatewayCase {
  key: 'claude' | 'gemini';
  /** The user's own settings before setup, and the variables of their shell. */
  prepare(home: string, gateway: string): NodeJS.ProcessEnv;
  /** The upstreams the proxy is given by flag: every API but the client's. */
  others: (url: string) => Partial<Record<'anthropic' | 'openai' | 'gemini', string>>;
  /** The header that carries the user's key to the gateway. */
  key_header: string;
  drop?: string[];
}

const CASES: GatewayCase[] = [
  {
    // ANTHROPIC_BASE_URL exported in the shell, none in settings.json (CLAUDE_CODE_DISABLE_
    // NONESSENTIAL_TRAFFIC unset, so that Claude Code sends its HEAD /api/hello too).
    key: 'claude',
    prepare: (_home, gateway) => ({ ANTHROPIC_BASE_URL: gateway }),
    others: (url) => ({ openai: url, gemini: url }),
    key_header: 'x-api-key',
    drop: ['CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'],
  },
  {
    // GOOGLE_GEMINI_BASE_URL in ~/.gemini/.env, with API-key sign-in.
    key: 'gemini',
    prepare: (home, gateway) => {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini/.env'), `# my gateway\nGOOGLE_GEMINI_BASE_URL=${gateway}\n`);
      writeFileSync(
        join(home, '.gemini/settings.json'),
        '{ "security": { "auth": { "selectedType": "gemini-api-key" } } }\n',
      );
      return {};
    },
    others: (url) => ({ anthropic: url, openai: url }),
    key_header: 'x-goog-api-key',
  },
];

const RUNS = CASES.map((c) => ({ c, binary: clientBinary(c.key) }));

beforeAll(() => {
  if (RUNS.some((r) => 'path' in r.binary)) buildCli();
}, 120_000);

const requests = (model: ScriptedModel) => model.seen.map((s) => `${s.method} ${s.url.split('?')[0]}`);

describe.each(RUNS)('$c.key with a gateway of the user’s, set up with --proxy', ({ c, binary }) => {
  if ('missing' in binary) {
    it.skip(`skipped: ${binary.missing}`, () => {});
    return;
  }
  it('every request reaches the user’s gateway through the proxy, none another upstream; undo points the client back', async () => {
    const { bin } = PINNED_CLIENTS[c.key] as { bin: string };
    const gateway = await startScriptedModel((turn) => ({
      kind: 'answer',
      text: turn.tools.length ? 'FROM THE GATEWAY' : 'ok',
    }));
    const elsewhere = await startScriptedModel(() => ({ kind: 'answer', text: 'FROM ANOTHER UPSTREAM' }));
    const machine = userMachine({ [bin]: binary.path });
    const shell = { ...machine.env, ...c.prepare(machine.home, gateway.url) };
    const port = (await freePort()) as number;
    const proxyUrl = `http://127.0.0.1:${port}`;
    const setup = spawnSync('spillway', ['setup', bin, '--proxy', proxyUrl], {
      env: shell,
      encoding: 'utf8',
    });
    expect(setup.status, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`was pointed at ${gateway.url}: the proxy now sends its`);
    const proxy = await startCliProxy(shell, c.others(elsewhere.url), port);
    try {
      const env: NodeJS.ProcessEnv = { ...shell, ...HEADLESS_ENV[bin] };
      for (const name of c.drop ?? []) delete env[name];
      const run = await runClient(bin, ['-p', 'say hi'], { env, cwd: machine.project, timeoutMs: 180_000 });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain('FROM THE GATEWAY');
      const through = proxy.log().filter((l) => typeof l.path === 'string');
      expect(requests(elsewhere), 'requests that reached another upstream').toEqual([]);
      expect(through.length, 'requests through the proxy').toBeGreaterThan(0);
      // Every request the proxy forwarded reached the gateway (none went to a default upstream).
      expect(gateway.seen.length, requests(gateway).join(', ')).toBe(through.length);
      expect(through.filter((l) => Number(l.status) >= 500)).toEqual([]);
      const keyed = gateway.seen.filter((s) => s.headers[c.key_header] !== undefined);
      expect(keyed.length, "requests with the user's key").toBeGreaterThan(0);
      if (c.key === 'claude') expect(requests(gateway)).toContain('HEAD /api/hello');
      // Doctor in a shell that exports another gateway says where the requests really go.
      if (c.key === 'claude') {
        const other = spawnSync('spillway', ['doctor', bin], {
          env: { ...shell, ANTHROPIC_BASE_URL: 'https://other-gateway.test' },
          encoding: 'utf8',
        });
        expect(other.stdout).toMatch(
          new RegExp(
            `✗ ANTHROPIC_BASE_URL is exported in this shell as https://other-gateway\\.test.*to ${gateway.url}`,
          ),
        );
      }
    } finally {
      await proxy.close();
      await gateway.close();
      await elsewhere.close();
    }
    const undo = spawnSync('spillway', ['setup', bin, '--undo'], { env: shell, encoding: 'utf8' });
    expect(undo.status, undo.stderr).toBe(0);
    if (c.key === 'gemini')
      expect(readFileSync(join(machine.home, '.gemini/.env'), 'utf8')).toBe(
        `# my gateway\nGOOGLE_GEMINI_BASE_URL=${gateway.url}\n`,
      );
    // settings.json did not exist before setup: undo removes it; the shell's variable stays theirs.
    else expect(existsSync(join(machine.home, '.claude/settings.json'))).toBe(false);
  }, 400_000);
});
