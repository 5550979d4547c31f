import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { link, lstat, lutimes, open, readFile, rename, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpillwayError } from '../errors.js';

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /**
   * A lock file not refreshed for this long is stale (default 60 s). Holders refresh theirs
   * every quarter of it, so only a holder that is gone, or on another host and stuck, ages out.
   */
  staleMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

// Within one process, callers queue on a promise chain per lock path, so the file lock only
// arbitrates between processes and nobody in this process spins on it.
const inProcess = new Map<string, Promise<void>>();

// A lock file is created empty and then filled; one still empty or partial after this long was
// torn by a crash, while a younger one may simply be being written by its new holder.
const TORN_GRACE_MS = 5_000;

/**
 * On Linux, exclusion between the processes of one host comes from a gate the kernel keeps: a
 * Unix socket in the abstract namespace, named after the lock path. Binding it is atomic, and
 * the kernel releases it when its holder exits, killed or not, so there is no stale gate to
 * break and no window where two processes both think they broke it. The lock file is still
 * taken under the gate, for processes on other hosts sharing the base and for other systems.
 */
async function acquireGate(path: string, deadline: number, timeoutMs: number): Promise<Server | undefined> {
  if (process.platform !== 'linux') return undefined;
  const name = `\0spillway-lock-${createHash('sha256').update(path).digest('hex').slice(0, 40)}`;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    const server = createServer();
    const bound = await new Promise<boolean | 'unavailable'>((done) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        done(err.code === 'EADDRINUSE' ? false : 'unavailable'),
      );
      server.listen(name, () => done(true));
    });
    // A sandbox without abstract sockets: the lock file alone arbitrates, as on other systems.
    if (bound === 'unavailable') return undefined;
    if (bound) {
      server.unref();
      return server;
    }
    if (Date.now() >= deadline) throw timedOut(path, timeoutMs);
    await sleep(wait);
  }
}

function timedOut(path: string, timeoutMs: number): SpillwayError {
  return new SpillwayError(
    'SPILLWAY_LOCK_TIMEOUT',
    `timed out after ${timeoutMs} ms waiting for the lock ${path}; another spillway process is holding it (if none is running, delete that file)`,
  );
}

/**
 * True when a process with this pid runs on this host (one we may not signal counts).
 *
 * @example
 * processAlive(process.pid); // true
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lock file at `path` can be taken over. Anything but a regular file (a symbolic
 * link, dangling or not) is not a lock. Under the gate, a lock file of this host is always
 * stale: its holder would hold the gate. Otherwise a holder on this host that no longer runs is
 * gone; elsewhere only the age of its last refresh tells.
 */
async function isStale(path: string, staleMs: number, gated: boolean): Promise<boolean> {
  let text: string;
  let mtimeMs: number;
  try {
    const info = await lstat(path);
    if (!info.isFile()) return true;
    mtimeMs = info.mtimeMs;
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const age = Date.now() - mtimeMs;
  let owner: Partial<LockOwner>;
  try {
    owner = JSON.parse(text) as Partial<LockOwner>;
  } catch {
    return gated || age > TORN_GRACE_MS;
  }
  if (owner.host === hostname() && (gated || (typeof owner.pid === 'number' && !processAlive(owner.pid))))
    return true;
  return age > staleMs;
}

/**
 * Takes a stale lock out of the way. Under the gate no other process of this host can be
 * breaking it at the same time, so it is removed at once. Without the gate the file is renamed
 * to a name only we know and checked again; if it turned out to be live, it is linked back.
 */
async function breakStale(path: string, staleMs: number, gated: boolean): Promise<void> {
  if (gated) {
    await unlink(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    return;
  }
  const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (await isStale(aside, staleMs, false)) {
    await unlink(aside).catch(() => {});
    return;
  }
  await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

async function acquireFile(
  path: string,
  o: { staleMs: number; timeoutMs: number; deadline: number; gated: boolean },
): Promise<LockOwner> {
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex') };
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(owner));
      } finally {
        await handle.close();
      }
      return owner;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new SpillwayError('SPILLWAY_IO', `cannot create lock file ${path}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    if (await isStale(path, o.staleMs, o.gated)) {
      await breakStale(path, o.staleMs, o.gated);
      continue;
    }
    if (Date.now() >= o.deadline) throw timedOut(path, o.timeoutMs);
    await sleep(wait);
  }
}

async function releaseFile(path: string, owner: LockOwner): Promise<void> {
  try {
    const current = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    // Only remove our own lock: if it was broken as stale and retaken, it is someone else's now.
    if (current.token === owner.token) await unlink(path);
  } catch {
    // Gone already, or not ours to remove.
  }
}

/**
 * One name for one lock, however its path is spelled (a symlinked folder, `..`): the real path
 * of its folder and its own name. Two spellings of one store must meet at the same gate.
 */
function canonicalLockPath(path: string): string {
  try {
    return join(realpathSync(dirname(resolve(path))), basename(path));
  } catch {
    return resolve(path); // the folder is not there yet: the lock file's creation will say so
  }
}

/**
 * Runs `fn` holding the cross-process lock at `path`: on Linux a kernel-held gate (see
 * `acquireGate`), then the lock file (created with O_EXCL, holding the owner's pid, host and a
 * token, refreshed while held). Waits with backoff up to `timeoutMs`; a lock whose holder is
 * gone is taken over.
 *
 * @example
 * await withLock(`${base}.lock`, async () => { await checkQuotaAndWrite(); });
 */
export async function withLock<T>(
  given: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const path = canonicalLockPath(given);
  const previous = inProcess.get(path) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const chained = previous.then(() => mine);
  inProcess.set(path, chained);
  await previous;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let gate: Server | undefined;
  try {
    gate = await acquireGate(path, deadline, timeoutMs);
    const owner = await acquireFile(path, { staleMs, timeoutMs, deadline, gated: gate !== undefined });
    const refresh = setInterval(() => {
      const now = new Date();
      lutimes(path, now, now).catch(() => {});
    }, staleMs / 4);
    refresh.unref();
    try {
      return await fn();
    } finally {
      clearInterval(refresh);
      await releaseFile(path, owner);
    }
  } finally {
    gate?.close();
    done();
    if (inProcess.get(path) === chained) inProcess.delete(path);
  }
}
