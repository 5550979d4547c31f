/** The checks of `spillway doctor` that belong to one client, and what they share. */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { codexCaptureScriptPath } from './codex-capture.js';
import { codexDir } from './codex-setup.js';
import { readToml } from './config-text.js';
import type { SetupOptions } from './setup-plan.js';

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

/**
 * What Codex's capture can do here, said plainly: it runs only in bash (Codex runs commands in
 * the user's login shell), only outside Codex's sandbox, and only with BASH_ENV set by setup
 * (a [shell_environment_policy] of the user's own is left alone). Where it cannot run, Codex's
 * own cut stands and spillway changes nothing.
 *
 * @example
 * for (const c of await checkCodexCapture(options)) console.log(c.ok ? '✓' : '✗', c.what);
 */
export async function checkCodexCapture(options: SetupOptions): Promise<Check[]> {
  const path = join(codexDir(options), 'config.toml');
  let config: Record<string, unknown>;
  try {
    config = readToml(readFileSync(path, 'utf8'), path);
  } catch (err) {
    return [{ ok: false, what: (err as Error).message, fix: `fix ${path}` }];
  }
  const set = (config.shell_environment_policy as { set?: Record<string, unknown> } | undefined)?.set;
  if (set?.BASH_ENV !== codexCaptureScriptPath(options.env))
    return [
      {
        ok: false,
        what: `Codex's shell commands do not read spillway's capture (BASH_ENV in [shell_environment_policy.set] of ${path}): Codex's own cut stands`,
        fix: `add BASH_ENV = "${codexCaptureScriptPath(options.env)}" under [shell_environment_policy.set] in ${path}`,
      },
    ];
  const checks: Check[] = [];
  const shell = options.env.SHELL ?? '';
  checks.push(
    shell === '' || /\/bash$/.test(shell)
      ? { ok: true, what: `Codex runs commands in bash (${shell || 'the default'}), which reads the capture` }
      : {
          ok: false,
          what: `Codex runs commands in your shell, ${shell}, which does not read BASH_ENV: outputs are not captured and Codex's own cut stands`,
          fix: 'nothing to fix: spillway stays out of your shell; recall and the proxy still work',
        },
  );
  const tee = await runShell('printf ok | tee -p /dev/null', '', options.env, 5000);
  checks.push(
    tee.code === 0 && tee.stdout === 'ok'
      ? { ok: true, what: 'tee -p (GNU coreutils) passes output on' }
      : {
          ok: false,
          what: 'tee -p does not work here: the capture cannot run',
          fix: 'install GNU coreutils',
        },
  );
  const mode = typeof config.sandbox_mode === 'string' ? config.sandbox_mode : undefined;
  checks.push({
    ok: true,
    what:
      mode === 'danger-full-access'
        ? 'Codex runs commands without its sandbox (sandbox_mode = "danger-full-access"): whole outputs are captured'
        : `in Codex's sandbox (${mode ?? 'its default'}; read-only and workspace-write) nothing is captured and Codex's own cut stands; outputs are captured when Codex runs without it (--sandbox danger-full-access, --yolo)`,
  });
  return checks;
}

/**
 * The `.env` Gemini CLI reads in `cwd`: the first `.gemini/.env` or `.env` from there upward,
 * then `~/.gemini/.env`, then `~/.env` (its findEnvFile, in a trusted folder).
 */
function geminiEnvFile(cwd: string, home: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const file of [join(dir, '.gemini/.env'), join(dir, '.env')]) if (existsSync(file)) return file;
    if (dirname(dir) === dir) break;
  }
  return [join(home, '.gemini/.env'), join(home, '.env')].find((f) => existsSync(f));
}

/**
 * Whether Gemini CLI, started in `cwd`, sends its requests to the proxy: a project's `.env`
 * (or the shell's own GOOGLE_GEMINI_BASE_URL) takes the place of `~/.gemini/.env`.
 *
 * @example
 * checkGeminiRouting(options, 'http://127.0.0.1:4747', process.cwd()).ok;
 */
export function checkGeminiRouting(options: SetupOptions, proxy: string, cwd: string): Check {
  const set = options.env.GOOGLE_GEMINI_BASE_URL;
  if (set !== undefined && set !== proxy)
    return {
      ok: false,
      what: `GOOGLE_GEMINI_BASE_URL is set to ${set} in your shell: Gemini CLI sends its requests there, not through the proxy`,
      fix: `unset GOOGLE_GEMINI_BASE_URL, or set it to ${proxy}`,
    };
  const file = geminiEnvFile(cwd, options.home);
  if (file === undefined || file === join(options.home, '.gemini/.env'))
    return {
      ok: true,
      what: `Gemini CLI started here reads ${join(options.home, '.gemini/.env')}: its requests go through the proxy`,
    };
  const text = readFileSync(file, 'utf8');
  const line = /^\s*(?:export\s+)?GOOGLE_GEMINI_BASE_URL\s*=\s*["']?([^"'\s#]*)/m.exec(text);
  return line?.[1] === proxy
    ? { ok: true, what: `Gemini CLI started here reads ${file}, which sends its requests through the proxy` }
    : {
        ok: false,
        what: `Gemini CLI started here reads ${file} instead of ~/.gemini/.env: its requests bypass the proxy`,
        fix: `add GOOGLE_GEMINI_BASE_URL=${proxy} to ${file}`,
      };
}
