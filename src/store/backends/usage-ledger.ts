import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../home/index.js';
import { type BaseScan, scanBase, totalBytes } from './scan.js';

/**
 * Bytes held by the whole base and by each directory, kept in `{base}/.usage.json` and updated
 * under the base's lock by every process that writes, so quota checks cost one small read
 * instead of a scan of every file. A scan rebuilds it when it is missing, unreadable, or older
 * than {@link LEDGER_MAX_AGE_MS} (which also heals drift from a process killed mid-put).
 */
export interface UsageLedger {
  v: 1;
  total: number;
  dirs: Record<string, number>;
  scannedAt: number;
}

export const LEDGER_FILE = '.usage.json';
export const LEDGER_MAX_AGE_MS = 10 * 60 * 1000;

export function ledgerFromScan(scan: BaseScan, now = Date.now()): UsageLedger {
  const dirs: Record<string, number> = {};
  for (const s of scan.sessions) dirs[s.name] = s.bytes;
  if (scan.stash) dirs[scan.stash.name] = scan.stash.bytes;
  return { v: 1, total: totalBytes(scan), dirs, scannedAt: now };
}

// The ledger this process last wrote, per base, with the identity of the file it wrote: while
// the file is still that one (no other process wrote since), it is not read and parsed again.
const written = new Map<string, { ledger: UsageLedger; ino: number; size: number; mtimeMs: number }>();

// Bytes this process appended without the lock (decision logs), per base and directory: the
// next load under the lock adds them, unless the ledger's scan was made after them (it counted
// them already). Bounded: past MAX_UNLEDGERED directories they are dropped, and left to the scan
// that rebuilds any ledger older than LEDGER_MAX_AGE_MS.
const unledgered = new Map<string, Map<string, { bytes: number; at: number }>>();
const MAX_UNLEDGERED = 10_000;

/**
 * Notes bytes appended to `dir` outside the lock, for the next {@link loadLedger} to add. Lost
 * if the process ends first: the ledger's next scan (at most {@link LEDGER_MAX_AGE_MS} away)
 * counts them.
 *
 * @example
 * noteUnledgered(base, 'sess', 120);
 */
export function noteUnledgered(base: string, dir: string, bytes: number, at = Date.now()): void {
  let dirs = unledgered.get(base);
  if (!dirs || dirs.size >= MAX_UNLEDGERED) {
    dirs = new Map();
    unledgered.set(base, dirs);
  }
  const noted = dirs.get(dir);
  dirs.set(dir, { bytes: (noted?.bytes ?? 0) + bytes, at });
}

function addUnledgered(base: string, ledger: UsageLedger): UsageLedger {
  const dirs = unledgered.get(base);
  if (!dirs) return ledger;
  unledgered.delete(base);
  for (const [dir, { bytes, at }] of dirs) {
    if (at < ledger.scannedAt) continue;
    ledger.total += bytes;
    ledger.dirs[dir] = (ledger.dirs[dir] ?? 0) + bytes;
  }
  return ledger;
}

/** The ledger, rebuilt by a scan when needed. Call under the base's lock. */
export async function loadLedger(base: string, now = Date.now()): Promise<UsageLedger> {
  const path = join(base, LEDGER_FILE);
  try {
    const info = await stat(path);
    const mine = written.get(base);
    let ledger: UsageLedger;
    if (mine && mine.ino === info.ino && mine.size === info.size && mine.mtimeMs === info.mtimeMs)
      ledger = mine.ledger;
    else ledger = JSON.parse(await readFile(path, 'utf8')) as UsageLedger;
    if (ledger.v === 1 && typeof ledger.total === 'number' && now - ledger.scannedAt <= LEDGER_MAX_AGE_MS)
      return addUnledgered(base, ledger);
  } catch {
    // Missing or torn: rebuilt below.
  }
  written.delete(base);
  return addUnledgered(base, ledgerFromScan(await scanBase(base), now));
}

/** Saves the ledger (atomically; no fsync: a lost update is healed by the next scan). */
export async function saveLedger(base: string, ledger: UsageLedger): Promise<void> {
  try {
    const path = await writeFileAtomic(base, LEDGER_FILE, Buffer.from(JSON.stringify(ledger)), {
      durable: false,
    });
    const info = await stat(path);
    written.set(base, { ledger, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs });
  } catch (err) {
    written.delete(base);
    throw err;
  }
}
