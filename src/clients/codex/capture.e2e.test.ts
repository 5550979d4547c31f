import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientBinary } from '../../test-support/client-install.js';
import {
  buildCli,
  codexExecArgs,
  codexProviderConfig,
  HEADLESS_ENV,
  runClient,
  seenOf,
  steady,
  turnsFrom,
  userMachine,
} from '../../test-support/real-clients.js';
import { startScriptedModel } from '../../test-support/scripted-model.js';

// The real Codex 0.171 runs each command twice: set up by `spillway setup codex`, then after
// `spillway setup codex --undo` (as never set up). What the model saw of the command and Codex's
// exit code must be the same: nested shells, jobs, `$!`, xtrace, the environment, a BASH_ENV of
// the user's own, a terminal, in each sandbox mode.

const codex = clientBinary('codex');

/** One command as the model asks Codex to run it, and how Codex is started. */
interface Case {
  name: string;
  command: string;
  sandbox: 'danger-full-access' | 'workspace-write' | 'read-only';
  extra?: Record<string, unknown>;
  /** The user's environment beyond the machine's (a BASH_ENV of their own). */
  env?: (home: string) => Record<string, string>;
  files?: Record<string, string>;
  /** Where Codex runs: the project folder, or the home folder itself. */
  cwd?: 'home';
  check?: (seen: string) => void;
}

// Standard error is merged into standard output: Codex reads two pipes at once, and their order
// within a few milliseconds is nobody's, with spillway or without.
const nested = (env: string) =>
  [
    'exec 2>&1',
    `echo "[$!]"`,
    `bash -c 'sleep 0.2 & sleep 0.2 & wait; echo all-done' | cat`,
    `printf '#!/bin/bash\\nsleep 0.2 & wait; echo script-done\\n' >par.sh; chmod +x par.sh; ./par.sh >out.log; cat out.log`,
    `bash -x -c 'echo nested'`,
    `env | grep -E '^(${env})' | sed 's/=.*//'`,
    `bash -c 'env | grep -E "^(BASH_ENV|SPILLWAY)"; echo "\${BASH_ENV-none}"'`,
    'echo "exit with 3"; exit 3',
  ].join('; ');
// Inside Codex's sandbox its bash starts as if set-uid and reads no BASH_ENV (so nothing is
// captured there); BASH_ENV stays in the command's own environment, the one difference left.
const NESTED = nested('BASH_ENV|SPILLWAY');

const CASES: Case[] = [
  ...(['danger-full-access', 'workspace-write', 'read-only'] as const).map((sandbox) => ({
    name: `nested shells, jobs, $!, xtrace and the environment, --sandbox ${sandbox}`,
    command: sandbox === 'danger-full-access' ? NESTED : nested('SPILLWAY'),
    sandbox,
    check: (seen: string) => {
      expect(seen).toContain('all-done');
      expect(seen).toContain('+ echo nested\nnested');
    },
  })),
  {
    name: 'the same on a terminal (tty: true), --sandbox danger-full-access',
    command: NESTED,
    sandbox: 'danger-full-access',
    extra: { tty: true },
    check: (seen) => expect(seen).toContain('all-done'),
  },
  {
    name: 'a BASH_ENV of the user’s own, --sandbox danger-full-access',
    command: `greet; bash -c greet; echo "$BASH_ENV" | sed "s|$HOME|~|"`,
    sandbox: 'danger-full-access',
    files: { 'greet.bash': 'greet() { echo "hello from my BASH_ENV"; }\nexport -f greet\n' },
    env: (home) => ({ BASH_ENV: join(home, 'greet.bash') }),
    check: (seen) => expect(seen).toContain('hello from my BASH_ENV\nhello from my BASH_ENV\n~/greet.bash'),
  },
];

beforeAll(() => {
  if ('path' in codex) buildCli();
}, 120_000);

/** A user's machine with Codex pointed at the scripted model; runs `command` once per call. */
async function codexMachine(c: Pick<Case, 'files' | 'env' | 'sandbox' | 'extra' | 'cwd'>) {
  const bin = codex as { path: string };
  let command = '';
  const model = await startScriptedModel((turn) => {
    if (!turn.tools.includes('exec_command')) return { kind: 'answer', text: 'ok' };
    if (turn.lastOutput) return { kind: 'answer', text: 'DONE' };
    return { kind: 'call', callId: 'call_run', name: 'exec_command', input: { cmd: command, ...c.extra } };
  });
  const machine = userMachine({ codex: bin.path });
  mkdirSync(join(machine.home, '.codex'));
  writeFileSync(join(machine.home, '.codex/config.toml'), codexProviderConfig(model.url));
  for (const [path, text] of Object.entries(c.files ?? {})) writeFileSync(join(machine.home, path), text);
  const env = { ...machine.env, ...c.env?.(machine.home) };
  const cwd = c.cwd === 'home' ? machine.home : machine.project;
  return {
    home: machine.home,
    setup: (...args: string[]) => {
      const r = spawnSync('spillway', ['setup', 'codex', ...args], { env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    },
    run: async (cmd: string) => {
      command = cmd;
      spawnSync('find', [machine.project, '-mindepth', '1', '-delete']);
      const from = model.seen.length;
      const args = codexExecArgs(c.sandbox, 'run it');
      const run = await runClient('codex', args, {
        env: { ...env, ...HEADLESS_ENV.codex },
        cwd,
        timeoutMs: 120_000,
      });
      return {
        code: run.code,
        seen: seenOf(turnsFrom(model, from, 'openai-responses').find((t) => t.lastOutput)?.lastOutput),
      };
    },
    close: async () => {
      await model.close();
      rmSync(machine.root, { recursive: true, force: true });
    },
  };
}

describe(`the real Codex ${'version' in codex ? codex.version : ''}: a command runs as without spillway`, () => {
  if ('missing' in codex) {
    it.skip(`skipped: ${codex.missing}`, () => {});
    return;
  }
  it.each(CASES)(
    '$name',
    async (c) => {
      const m = await codexMachine(c);
      try {
        m.setup();
        const withSpillway = await m.run(c.command);
        m.setup('--undo');
        const alone = await m.run(c.command);
        c.check?.(alone.seen);
        expect(steady(withSpillway.seen), 'what the model saw, with spillway and without').toBe(
          steady(alone.seen),
        );
        expect(withSpillway.code).toBe(alone.code);
      } finally {
        await m.close();
      }
    },
    300_000,
  );

  it('in workspace-write from $HOME, a command cannot change the capture a later command reads', async () => {
    const m = await codexMachine({ sandbox: 'workspace-write', cwd: 'home' });
    try {
      m.setup();
      const script = join(m.home, '.codex/spillway/capture.bash');
      const before = readFileSync(script, 'utf8');
      const attack = await m.run(
        `echo 'echo PWNED' >>${script}; mv ${join(m.home, '.codex/spillway')} ${join(m.home, 'moved')}; ln -sf /tmp/x ${script}`,
      );
      expect(attack.seen).toMatch(/capture\.bash: Read-only file system/);
      expect(readFileSync(script, 'utf8')).toBe(before);
      const later = await m.run('echo fine');
      expect(later.seen).not.toContain('PWNED');
    } finally {
      await m.close();
    }
  }, 300_000);
});
