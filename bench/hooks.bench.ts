import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { codexCaptureScript } from '../src/clients/codex-capture.js';
import { interleaved, median, medianRatio, ms } from './measure.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');

/** A client's hook input for a small output: what every shell command of a session sends. */
const SMALL: Record<string, object> = {
  claude: {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_response: { stdout: 'README.md\nsrc\n', stderr: '' },
  },
  codex: {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    session_id: 'bench-thread',
    tool_use_id: 'call_1',
    tool_input: { command: 'ls' },
    tool_response: 'README.md\nsrc\n',
  },
  gemini: {
    hook_event_name: 'AfterTool',
    tool_name: 'run_shell_command',
    tool_input: { command: 'ls' },
    tool_response: { llmContent: 'README.md\nsrc\n', returnDisplay: 'README.md\nsrc\n' },
  },
};

const run = (command: string, args: string[], input?: string, env?: NodeJS.ProcessEnv) => {
  const r = spawnSync(command, args, { input, env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
};

/**
 * What capture at the source costs per shell command, as a client pays it: each client's hook on
 * a small output against a bare `node -e 0`, and a Codex command (`bash -c 'ls /usr'`) with
 * spillway's BASH_ENV capture against the same command without it, all interleaved A B A B.
 * Goals: a hook within 1.5x of `node -e 0`; the capture within 1.5x of the command.
 */
export async function benchHooks(): Promise<void> {
  console.log(
    '\n## hooks: capture at the source, per shell command (baseline: node -e 0; bash -c without capture)',
  );
  if (!existsSync(CLI)) spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const home = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    const env = { ...process.env, HOME: home, SPILLWAY_HOME: join(home, '.spillway') };
    const script = join(home, 'capture.bash');
    const spool = join(home, '.spillway/spool/codex');
    mkdirSync(spool, { recursive: true });
    writeFileSync(script, codexCaptureScript({ spoolDir: spool }));
    const codexEnv = { ...env, CODEX_THREAD_ID: 'bench-thread', CODEX_TOOL_CALL_ID: 'call_1' };
    const samples = await interleaved(
      {
        node: () => run(process.execPath, ['-e', '0']),
        claude: () => run(process.execPath, [CLI, 'hook', 'claude'], JSON.stringify(SMALL.claude), env),
        codex: () => run(process.execPath, [CLI, 'hook', 'codex'], JSON.stringify(SMALL.codex), env),
        gemini: () => run(process.execPath, [CLI, 'hook', 'gemini'], JSON.stringify(SMALL.gemini), env),
        bash: () => run('bash', ['-c', 'ls /usr'], undefined, codexEnv),
        captured: () => run('bash', ['-c', 'ls /usr'], undefined, { ...codexEnv, BASH_ENV: script }),
      },
      15,
    );
    for (const client of ['claude', 'codex', 'gemini'] as const)
      console.log(
        `spillway hook ${client}, small output: ${ms(median(samples[client]))} ` +
          `(${medianRatio(samples[client], samples.node).toFixed(2)}x node -e 0's ${ms(median(samples.node))})`,
      );
    console.log(
      `bash -c 'ls /usr' with the Codex capture: ${ms(median(samples.captured))} ` +
        `(${medianRatio(samples.captured, samples.bash).toFixed(2)}x the command alone, ${ms(median(samples.bash))})`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
