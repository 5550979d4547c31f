import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { SpillwayError } from '../errors.js';

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is stale even if its holder cannot be checked (default 60 s). */
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// A lock file is created empty and then filled; one still empty or partial after this long was
// torn by a crash, while a younger one may simply be being written by its new holder.
const TORN_GRACE_MS = 5_000;

async function isStale(path: string, staleMs: number): Promise<boolean> {
  let info: Awaited<ReturnType<typeof stat>>;
  let text: string;
  try {
    info = await stat(path);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const age = Date.now() - info.mtimeMs;
  let owner: Partial<LockOwner>;
  try {
    owner = JSON.parse(text) as Partial<LockOwner>;
  } catch {
    return age > TORN_GRACE_MS;
  }
  // A holder on this host that no longer runs is certainly gone; elsewhere only age tells.
  if (owner.host === hostname() && typeof owner.pid === 'number' && !alive(owner.pid)) return true;
  return age > staleMs;
}

/**
 * Takes a stale lock out of the way without racing another process that does the same: the
 * file is renamed to a name only we know, then checked again; if it turned out to be live (a
 * new holder slipped in between), it is linked back.
 */
async function breakStale(path: string, staleMs: number): Promise<void> {
  const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (await isStale(aside, staleMs)) {
    await unlink(aside).catch(() => {});
    return;
  }
  await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

async function acquireFile(path: string, options: LockOptions): Promise<LockOwner> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 60_000;
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex') };
  const deadline = Date.now() + timeoutMs;
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
    if (await isStale(path, staleMs)) {
      await breakStale(path, staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new SpillwayError(
        'SPILLWAY_LOCK_TIMEOUT',
        `timed out after ${timeoutMs} ms waiting for the lock ${path}; if no spillway process is running, delete that file`,
      );
    }
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
 * Runs `fn` holding the cross-process lock at `path` (created with O_EXCL, holding the owner's
 * pid, host and a token). Waits with backoff up to `timeoutMs`; a lock whose holder died, or
 * that is older than `staleMs`, is taken over.
 *
 * @example
 * await withLock(`${base}.lock`, async () => { await checkQuotaAndWrite(); });
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const previous = inProcess.get(path) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const chained = previous.then(() => mine);
  inProcess.set(path, chained);
  await previous;
  try {
    const owner = await acquireFile(path, options);
    try {
      return await fn();
    } finally {
      await releaseFile(path, owner);
    }
  } finally {
    done();
    if (inProcess.get(path) === chained) inProcess.delete(path);
  }
}
