import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const TOOLS = ['/usr/sbin/useradd', '/usr/sbin/userdel', '/usr/sbin/runuser'];

/** Why a test cannot make a local user here, if it cannot: it needs root on Linux and the tools. */
export const LOCAL_USER_MISSING =
  process.platform !== 'linux'
    ? `local users are made with Linux's useradd; this is ${process.platform}`
    : process.getuid?.() !== 0
      ? 'making a second local user needs root (useradd); run the tests as root, as CI does, to run it'
      : TOOLS.find((t) => !existsSync(t))
        ? `${TOOLS.find((t) => !existsSync(t))} is missing (Debian's passwd and util-linux packages)`
        : undefined;

/** A local account made for one test; `remove` deletes it (and its home, if it has one). */
export interface LocalUser {
  name: string;
  uid: number;
  /** Its home folder, made with it when asked (`home: true`). */
  home: string | undefined;
  /** Runs a command as this user (runuser, the caller's environment), from `/`. */
  run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /**
   * A path to this process's Node that this user can execute: `process.execPath` when they can
   * reach it, else a copy in a folder they can read (CI unpacks Node 22 and 24 under a private
   * temporary folder), removed with the user.
   */
  node(): string;
  remove(): void;
}

/**
 * Makes a local user with no password (and, unless asked, no home; `/bin/sh` unless another login
 * shell is named), for a test that needs another uid on this machine. Check
 * {@link LOCAL_USER_MISSING} first.
 *
 * @example
 * const user = createLocalUser('swproxy');
 * try { await user.run(process.execPath, ['-e', '0']); } finally { user.remove(); }
 */
export function createLocalUser(prefix: string, o: { shell?: string; home?: boolean } = {}): LocalUser {
  if (LOCAL_USER_MISSING) throw new Error(LOCAL_USER_MISSING);
  const name = `${prefix}${process.pid}`.slice(0, 31);
  const made = spawnSync(
    '/usr/sbin/useradd',
    [o.home ? '--create-home' : '--no-create-home', '--shell', o.shell ?? '/bin/sh', name],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`useradd ${name} failed: ${made.stderr}`);
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const home = o.home
    ? spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.split(':')[5]
    : undefined;
  let copy: string | undefined;
  const node = (): string => {
    if (copy) return join(copy, 'node');
    const reach = spawnSync('/usr/sbin/runuser', ['-u', name, '--', 'test', '-x', process.execPath]);
    if (reach.status === 0) return process.execPath;
    // Not under the tests' own temporary root: it is private to this user, as it should be.
    copy = mkdtempSync('/tmp/sw-node-');
    chmodSync(copy, 0o755);
    copyFileSync(process.execPath, join(copy, 'node'));
    chmodSync(join(copy, 'node'), 0o755);
    return join(copy, 'node');
  };
  return {
    name,
    uid,
    home,
    node,
    run: (command, args) =>
      new Promise((done, fail) => {
        const child = spawn('/usr/sbin/runuser', ['-u', name, '--', command, ...args], {
          cwd: '/',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => {
          stdout += c;
        });
        child.stderr.on('data', (c) => {
          stderr += c;
        });
        child.on('error', fail);
        child.on('close', (code) => done({ code, stdout, stderr }));
      }),
    remove: () => {
      spawnSync('/usr/sbin/userdel', o.home ? ['--remove', '--force', name] : [name]);
      if (copy) rmSync(copy, { recursive: true, force: true });
    },
  };
}
