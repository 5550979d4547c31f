import { userInfo } from 'node:os';
import { basename } from 'node:path';

/**
 * The shell Codex runs commands in for a login shell `path` (codex-rs `default_user_shell`: the
 * login shell from the user database when it is zsh, bash or sh; any other, fish included, gets
 * bash on Linux). Only bash reads `BASH_ENV`, so only there can the capture run.
 *
 * @example
 * codexShellFor('/usr/bin/zsh'); // 'zsh'
 * codexShellFor('/usr/bin/fish'); // 'bash'
 */
export function codexShellFor(path: string): 'bash' | 'zsh' | 'sh' {
  const name = basename(path).replace(/\.exe$/, '');
  return name === 'zsh' || name === 'sh' ? name : 'bash';
}

/**
 * The shell Codex runs this user's commands in, and the login shell it comes from (Codex reads
 * the user database, not `$SHELL`).
 *
 * @example
 * codexShell(); // { shell: 'bash', login: '/bin/bash' }
 */
export function codexShell(): { shell: 'bash' | 'zsh' | 'sh'; login: string } {
  let login = '';
  try {
    login = userInfo().shell ?? '';
  } catch {} // no entry in the user database: Codex falls back to bash
  return { shell: codexShellFor(login), login };
}
