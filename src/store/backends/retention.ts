import { readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { processAlive, withLock } from '../file-lock.js';
import { FROZEN_PREFIX } from '../ids.js';
import { ACTIVE_AGE_MS, evictions, idleEvictions, isLive, stashIdsNamed } from '../quota.js';
import { DEFAULT_LIMITS } from '../store.js';
import { type DirScan, scanBase, totalBytes } from './scan.js';
import { ledgerFromScan, saveLedger } from './usage-ledger.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  /** The session running now: never removed. */
  keep?: string;
  /** The clock, for tests and for replaying a decision (default now). */
  now?: number;
  /** Stash entries and idle sessions older than this are removed (default 30 days). */
  keepAgeMs?: number;
  /** A session that wrote within this is in use by some process and survives (default 15 minutes). */
  activeAgeMs?: number;
  /** While the base is over this, the oldest idle sessions are removed (default 1 GiB). */
  maxTotalBytes?: number;
  /** Report what would be removed without removing it. */
  dryRun?: boolean;
  /** Lock timeout in ms (default 10 s). */
  lockTimeoutMs?: number;
}

export type RetentionReason = 'expired_stash' | 'old_session' | 'over_total' | 'stale_temp';

export interface RetentionReport {
  removed: { path: string; bytes: number; reason: RetentionReason }[];
  freedBytes: number;
  /** Bytes left under the base afterwards (as it would be, for a dry run). */
  remainingBytes: number;
  /** Directories under the base that are not spillway's (not session ids): left untouched. */
  leftAlone: string[];
}

// A temp file this old belongs to a write that died; a live write takes seconds at most.
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * A temp file of a write that will never finish: its writer (the pid in its name, see
 * `writeFileAtomic`) no longer runs on this host, or it is older than any live write. So a
 * writer killed mid-write does not hold quota for an hour.
 */
function deadTemp(f: { name: string; mtimeMs: number }, now: number): boolean {
  if (now - f.mtimeMs > STALE_TEMP_MS) return true;
  const pid = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(f.name)?.[1];
  return pid !== undefined && !processAlive(Number(pid));
}

/** The pass itself, for callers that already hold the lock. */
export async function applyRetentionLocked(
  base: string,
  options: RetentionOptions = {},
): Promise<RetentionReport> {
  const now = options.now ?? Date.now();
  const keepAgeMs = options.keepAgeMs ?? 30 * DAY_MS;
  const liveness = { keep: options.keep, now, activeAgeMs: options.activeAgeMs ?? ACTIVE_AGE_MS };
  const maxTotalBytes = options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes;
  const scan = await scanBase(base);
  const report: RetentionReport = { removed: [], freedBytes: 0, remainingBytes: 0, leftAlone: scan.foreign };
  let total = totalBytes(scan);

  const removeFile = async (path: string, bytes: number, reason: RetentionReason) => {
    if (!options.dryRun) {
      try {
        await unlink(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
    }
    report.removed.push({ path, bytes, reason });
    report.freedBytes += bytes;
    total -= bytes;
  };
  const removeSession = async (session: DirScan, reason: RetentionReason) => {
    if (!options.dryRun) {
      for (const f of session.files) await unlink(f.path).catch(() => {});
      // Only empties what spillway wrote; a directory holding anything else stays.
      await rmdir(session.path).catch(() => {});
    }
    report.removed.push({ path: session.path, bytes: session.bytes, reason });
    report.freedBytes += session.bytes;
    total -= session.bytes;
  };

  // The stash is not a session: its entries expire one by one.
  for (const f of scan.stash?.files ?? []) {
    const age = now - f.mtimeMs;
    if (f.temp ? deadTemp(f, now) : age > keepAgeMs)
      await removeFile(f.path, f.bytes, f.temp ? 'stale_temp' : 'expired_stash');
  }

  const survivors: DirScan[] = [];
  for (const session of scan.sessions) {
    if (session.name !== options.keep && now - session.newestMs > keepAgeMs) {
      await removeSession(session, 'old_session');
      continue;
    }
    for (const f of session.files) {
      if (f.temp && deadTemp(f, now)) await removeFile(f.path, f.bytes, 'stale_temp');
    }
    survivors.push(session);
  }

  // Over the total: the oldest idle sessions go first; kept and active ones never.
  for (const session of idleEvictions(survivors, total - maxTotalBytes, liveness))
    await removeSession(session, 'over_total');
  // Still over: the oldest stash entries go, except those a live session's frozen decisions
  // name (its next turn replays their markers, and a marker must stay recallable).
  if (total > maxTotalBytes && scan.stash) {
    const named = await stashIdsNamedBy(survivors.filter((s) => isLive(s, liveness)));
    const gone = new Set(report.removed.map((r) => r.path));
    const oldest = scan.stash.files
      .filter((f) => !f.temp && !gone.has(f.path))
      .sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : 1))
      .map((f) => ({ ...f, name: f.name.slice(0, -'.txt'.length) }));
    for (const f of evictions(oldest, total - maxTotalBytes, named))
      await removeFile(f.path, f.bytes, 'over_total');
  }
  report.remainingBytes = total;
  // What is left is exactly known now: the quota ledger starts again from this scan.
  if (!options.dryRun) await saveLedger(base, ledgerFromScan(await scanBase(base), now)).catch(() => {});
  return report;
}

/** The stash ids the frozen decisions of `sessions` name (their own id, or in a marker). */
async function stashIdsNamedBy(sessions: DirScan[]): Promise<Set<string>> {
  const logs: string[] = [];
  for (const session of sessions)
    for (const f of session.files)
      if (!f.temp && f.name.startsWith(FROZEN_PREFIX))
        logs.push(await readFile(f.path, 'utf8').catch(() => ''));
  return stashIdsNamed(logs);
}

/**
 * Retention for a file store base: stash entries expire one by one after `keepAgeMs`; session
 * directories whose newest file is older than that are removed; then, while the base is over
 * `maxTotalBytes`, the oldest sessions idle for at least `activeAgeMs`, then the oldest stash
 * entries that no active session's frozen decision names. `keep` and recently
 * active sessions always survive. Runs under the base's lock, removes only regular files
 * spillway wrote, never follows a symbolic link. A missing base is nothing to prune.
 *
 * @example
 * const report = await prune(defaultBase(), { keep: currentSession });
 * console.log(`freed ${report.freedBytes} bytes`);
 */
export async function applyRetention(base: string, options: RetentionOptions = {}): Promise<RetentionReport> {
  try {
    await stat(base);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return { removed: [], freedBytes: 0, remainingBytes: 0, leftAlone: [] };
    throw err;
  }
  return withLock(`${base}.lock`, () => applyRetentionLocked(base, options), {
    timeoutMs: options.lockTimeoutMs,
  });
}
