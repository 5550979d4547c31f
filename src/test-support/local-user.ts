import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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
  return {
    name,
    uid,
    home,
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
    },
  };
}
