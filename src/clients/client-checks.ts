/** What the checks of `spillway doctor` share: a check, and running a command the way a client does. */
import { spawn } from 'node:child_process';

/** One link of the chain: what was checked, whether it holds, and the fix when it does not. */
export interface Check {
  ok: boolean;
  what: string;
  fix?: string;
}

/**
 * Runs `command` in a shell with `input` on stdin; its output, or why it failed.
 *
 * @example
 * const r = await runShell('printf ok | tee -p /dev/null', '', process.env, 5000); // { code: 0, stdout: 'ok', stderr: '' }
 */
export function runShell(command: string, input: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
