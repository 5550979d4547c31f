import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientBinary } from '../../test-support/client-install.js';
import { createLocalUser, LOCAL_USER_MISSING, type LocalUser } from '../../test-support/local-user.js';
import {
  buildCli,
  codexExecArgs,
  codexProviderConfig,
  HEADLESS_ENV,
  ROOT,
  runClient,
  seenOf,
  steady,
  turnsFrom,
} from '../../test-support/real-clients.js';
import { startScriptedModel } from '../../test-support/scripted-model.js';

// A real local user whose login shell is zsh, made for this test and removed after: Codex runs
// their commands in zsh, which never reads BASH_ENV. Setup leaves the capture out, doctor says
// so, and the real Codex runs a nested bash that waits for its jobs as it does with spillway
// never set up.

const codex = clientBinary('codex');
const ZSH = spawnSync('sh', ['-c', 'command -v zsh'], { encoding: 'utf8' }).stdout.trim();
const why =
  LOCAL_USER_MISSING ?? (!ZSH ? 'zsh is not installed' : 'missing' in codex ? codex.missing : undefined);
let account: LocalUser | undefined;
let user = '';
let home = '';
let env: NodeJS.ProcessEnv = {};

/** Runs a command as the zsh user, with their environment. */
const asUser = (args: string[]) =>
  spawnSync('runuser', ['-u', user, '--', ...args], { env, cwd: home, encoding: 'utf8' });
const spillway = (...args: string[]) =>
  asUser([account?.node() ?? process.execPath, join(ROOT, 'dist/cli.js'), ...args]);

describe('a zsh login user', () => {
  if (why) {
    it.skip(`skipped: ${why}`, () => {});
    return;
  }
  beforeAll(() => {
    buildCli();
    account = createLocalUser('swzsh', { shell: ZSH, home: true });
    user = account.name;
    home = account.home ?? `/home/${user}`;
    env = {
      HOME: home,
      USER: user,
      LOGNAME: user,
      SHELL: ZSH,
      PATH: process.env.PATH ?? '',
      LANG: 'C.UTF-8',
    };
    asUser(['mkdir', '-p', join(home, '.codex')]);
  }, 180_000);
  afterAll(() => {
    account?.remove();
  });

  it('gets no BASH_ENV from setup, is told why by doctor, and Codex runs as without spillway', async () => {
    const command = `bash -c 'sleep 0.2 & sleep 0.2 & wait; echo all-done' | cat; env | grep -c '^BASH_ENV'; bash -x -c 'echo nested' 2>&1; echo "shell: $0"`;
    const model = await startScriptedModel((turn) => {
      if (!turn.tools.includes('exec_command')) return { kind: 'answer', text: 'ok' };
      if (turn.lastOutput) return { kind: 'answer', text: 'DONE' };
      return { kind: 'call', callId: 'call_run', name: 'exec_command', input: { cmd: command } };
    });
    try {
      const config = join(home, '.codex/config.toml');
      writeFileSync(config, codexProviderConfig(model.url));
      spawnSync('chown', [`${user}:`, config]);
      const run = async () => {
        const from = model.seen.length;
        const args = codexExecArgs('danger-full-access', 'run it');
        const r = await runClient('runuser', ['-u', user, '--', (codex as { path: string }).path, ...args], {
          env: { ...env, ...HEADLESS_ENV.codex },
          cwd: home,
          timeoutMs: 120_000,
        });
        return {
          code: r.code,
          seen: seenOf(turnsFrom(model, from, 'openai-responses').find((t) => t.lastOutput)?.lastOutput),
        };
      };
      const setup = spillway('setup', 'codex');
      expect(setup.status, setup.stderr).toBe(0);
      expect(asUser(['cat', config]).stdout).not.toContain('BASH_ENV');
      const doctor = spillway('doctor', 'codex');
      expect(doctor.stdout).toMatch(
        new RegExp(
          `✗ Codex runs commands in zsh \\(your login shell, ${ZSH}\\), which does not read BASH_ENV: outputs are not captured, not even in a bash a command starts`,
        ),
      );
      const withSpillway = await run();
      expect(spillway('setup', 'codex', '--undo').status).toBe(0);
      const alone = await run();
      expect(alone.seen).toContain(`all-done\n0\n+ echo nested\nnested\nshell: ${ZSH}`);
      expect(steady(withSpillway.seen)).toBe(steady(alone.seen));
      expect(withSpillway.code).toBe(alone.code);
    } finally {
      await model.close();
    }
  }, 300_000);
});
