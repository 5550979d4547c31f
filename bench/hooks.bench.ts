import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { codexCaptureScript } from '../src/clients/codex/capture.js';
import { loadClients } from '../src/clients/registry.js';
import { interleaved, median, medianRatio, ms } from './measure.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');

const run = (command: string, args: string[], input?: string, env?: NodeJS.ProcessEnv) => {
  const r = spawnSync(command, args, { input, env: env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
};

/**
 * What capture at the source costs per shell command, as a client pays it: each client's hook on
 * a small output against a bare `node -e 0`, and a Codex command (`bash -c 'ls /usr'`, started by
 * a process named codex, as the capture acts only there; a new call id each time) with spillway's
 * BASH_ENV capture against the same command without it, all interleaved A B A B.
 * Goals: a hook within 1.5x of `node -e 0`; the capture within 1.5x of `node -e 0` plus the command.
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
    const codex = join(home, 'codex');
    symlinkSync(spawnSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim(), codex);
    let call = 0;
    const codexRun = (bashEnv: string) =>
      run(
        codex,
        [
          '-c',
          'if [ -n "$0" ]; then BASH_ENV=$0 bash -c "ls /usr"; else bash -c "ls /usr"; fi; exit $?',
          bashEnv,
        ],
        undefined,
        {
          ...env,
          CODEX_THREAD_ID: 'bench-thread',
          CODEX_TOOL_CALL_ID: `call_${++call}`,
        },
      );
    // Each client's hook on its probe: a small output, what most shell commands of a session send.
    const clients = await loadClients();
    const hooks = Object.fromEntries(
      clients.map((c) => [
        c.key,
        () => run(process.execPath, [CLI, 'hook', c.key], JSON.stringify(c.probe), env),
      ]),
    );
    const samples = await interleaved(
      {
        node: () => run(process.execPath, ['-e', '0']),
        ...hooks,
        bash: () => codexRun(''),
        captured: () => codexRun(script),
      },
      15,
    );
    for (const { key } of clients)
      console.log(
        `spillway hook ${key}, small output: ${ms(median((samples as Record<string, number[]>)[key] ?? []))} ` +
          `(${medianRatio((samples as Record<string, number[]>)[key] ?? [], samples.node ?? []).toFixed(2)}x node -e 0's ${ms(median(samples.node ?? []))})`,
      );
    console.log(
      `bash -c 'ls /usr' with the Codex capture: ${ms(median(samples.captured))} ` +
        `(${medianRatio(samples.captured, samples.bash).toFixed(2)}x the command alone, ${ms(median(samples.bash))}; ` +
        `${(median(samples.captured) / (median(samples.node ?? []) + median(samples.bash))).toFixed(2)}x node -e 0 plus the command)`,
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
