import { readFile, rmdir, stat, unlink } from 'node:fs/promises';
import { processAlive, withLock } from '../../home/index.js';
import { STASH_DIR } from '../ids.js';
import { ACTIVE_AGE_MS } from '../quota.js';
import { planRoom, type RoomView } from '../room.js';
import { DEFAULT_LIMITS, type EntryInfo } from '../store.js';
import { type DirScan, type OwnFile, scanBase, totalBytes } from './scan.js';
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

  // Over the total: the one over-total rule every store keeps (room.ts), on what is left.
  if (total > maxTotalBytes) {
    const gone = new Set(report.removed.map((r) => r.path));
    const stash = (scan.stash?.files ?? []).filter((f) => !f.temp && !gone.has(f.path));
    const plan = await planRoom(scanView(survivors, stash), total - maxTotalBytes, liveness);
    const byName = new Map(survivors.map((s) => [s.name, s]));
    for (const { name } of plan.sessions) {
      const session = byName.get(name);
      if (session) await removeSession(session, 'over_total');
    }
    const files = new Map(stash.map((f) => [entryName(f), f]));
    for (const { name } of plan.stash) {
      const f = files.get(name);
      if (f) await removeFile(f.path, f.bytes, 'over_total');
    }
  }
  report.remainingBytes = total;
  // What is left is exactly known now: the quota ledger starts again from this scan.
  if (!options.dryRun) await saveLedger(base, ledgerFromScan(await scanBase(base), now)).catch(() => {});
  return report;
}

const entryName = (f: OwnFile): string => f.name.slice(0, -'.txt'.length);

/** What a scan found, as room-making reads a store: sessions, the stash's entries, bodies. */
function scanView(sessions: DirScan[], stash: OwnFile[]): RoomView {
  const entries = (files: OwnFile[]): EntryInfo[] =>
    files.filter((f) => !f.temp).map((f) => ({ name: entryName(f), bytes: f.bytes, mtimeMs: f.mtimeMs }));
  const dirs = new Map(sessions.map((s) => [s.name, s.files]));
  const paths = new Map(sessions.flatMap((s) => s.files.map((f) => [`${s.name}/${f.name}`, f.path])));
  return {
    list: async (dir?: string) =>
      dir === undefined
        ? sessions.map((s) => ({ name: s.name, bytes: s.bytes, mtimeMs: s.newestMs }))
        : entries(dir === STASH_DIR ? stash : (dirs.get(dir) ?? [])),
    read: async (key) => {
      const path = paths.get(`${key.dir}/${key.name}.txt`);
      return path ? readFile(path).catch(() => null) : null;
    },
  };
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
