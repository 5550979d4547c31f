import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Check, runShell } from '../client-checks.js';
import { readToml } from '../config-text.js';
import type { SetupOptions } from '../setup-plan.js';
import { codexCaptureScriptPath } from './capture.js';
import { codexDir } from './setup.js';
import { codexShell } from './shell.js';

/**
 * What Codex's capture can do here, said plainly: it runs only where Codex runs commands in bash
 * (the user's login shell, from the user database, as Codex reads it), only outside Codex's
 * sandbox, only with output not on a terminal, and only with BASH_ENV set by setup (a
 * [shell_environment_policy] of the user's own is left alone). Where it cannot run, Codex's own
 * cut stands and spillway changes nothing; no shell a command starts ever captures.
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
  const script = codexCaptureScriptPath(options);
  const { shell, login } = codexShell();
  if (shell !== 'bash')
    return [
      {
        ok: false,
        what: `Codex runs commands in ${shell} (your login shell, ${login}), which does not read BASH_ENV: outputs are not captured, not even in a bash a command starts, and Codex's own cut stands`,
        fix:
          set?.BASH_ENV === script
            ? 'spillway setup codex (an earlier setup set BASH_ENV; setup now leaves it out for your shell)'
            : 'nothing to fix: spillway stays out of your shell; recall and the proxy still work',
      },
    ];
  if (set?.BASH_ENV !== script)
    return [
      {
        ok: false,
        what: `Codex's shell commands do not read spillway's capture (BASH_ENV in [shell_environment_policy.set] of ${path}): Codex's own cut stands`,
        fix: `add BASH_ENV = "${script}" under [shell_environment_policy.set] in ${path}`,
      },
    ];
  const checks: Check[] = [
    {
      ok: true,
      what: `Codex runs commands in bash (your login shell, ${login || 'none: bash'}), which reads the capture`,
    },
  ];
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
    what: `${
      mode === 'danger-full-access'
        ? 'Codex runs commands without its sandbox (sandbox_mode = "danger-full-access"): whole outputs are captured'
        : `in Codex's sandbox (${mode ?? 'its default'}; read-only and workspace-write) nothing is captured and Codex's own cut stands; outputs are captured when Codex runs without it (--sandbox danger-full-access, --yolo)`
    }; a command Codex runs on a terminal (tty) is not captured either`,
  });
  return checks;
}
