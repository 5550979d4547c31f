import { lstat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SpillwayError } from '../../errors.js';
import { defaultBase } from '../default-base.js';
import { withLock } from '../file-lock.js';
import { assertIdPart, STASH_DIR, type StoreKey } from '../ids.js';
import {
  appendPrivate,
  ensurePrivateDir,
  linkRefused,
  lstatQuick,
  openPrivateForRead,
  writeFileAtomic,
} from '../private-fs.js';
import { sessionFits, sessionQuotaError, totalQuotaError } from '../quota.js';
import {
  type ByteRange,
  cutAtUtf8Boundary,
  DEFAULT_LIMITS,
  type EntryInfo,
  entryFull,
  type PutOptions,
  type PutResult,
  type Store,
  type StoreEntry,
  type StoreLimits,
} from '../store.js';
import { applyRetention, applyRetentionLocked } from './retention.js';
import { scanBase, scanDir } from './scan.js';
import { loadLedger, noteUnledgered, saveLedger, type UsageLedger } from './usage-ledger.js';

/** Files written at once by putAllIfAbsent: enough to overlap flushes, few enough for any fd limit. */
const PARALLEL_WRITES = 8;

export interface FileStoreOptions extends Partial<StoreLimits> {
  /** Base directory (default `$SPILLWAY_HOME/tool-results`, else `~/.spillway/tool-results`). */
  base?: string;
  /** How long to wait for the cross-process lock (default 10 s). */
  lockTimeoutMs?: number;
  /** Run retention on the first spill of this process (default true). */
  pruneOnFirstSpill?: boolean;
  /** Sessions that wrote within this are never removed to make room (default 15 minutes). */
  activeAgeMs?: number;
}

/** Session directories an append remembers as checked; past this many, they are checked again. */
const MAX_CHECKED_DIRS = 4096;
/** The bases retention ran on in this process (once per base, on its first spill). */
const prunedBases = new Set<string>();

/**
 * The default {@link Store}: `{base}/{session}/{call}.txt` for spills and `{base}/pruned/{id}.txt`
 * for stash entries. Directories 0700, files 0600 (looser ones tightened), atomic writes,
 * no symbolic link followed inside the base, quotas shared by every process through the lock
 * file `{base}.lock`.
 *
 * @example
 * const store = new FileStore({ base: '/tmp/spill' });
 * await store.put({ dir: 'sess', name: 'call_1' }, Buffer.from(output));
 * store.pathOf({ dir: 'sess', name: 'call_1' }); // '/tmp/spill/sess/call_1.txt'
 */
export class FileStore implements Store {
  readonly kind = 'file';
  readonly base: string;
  readonly limits: Readonly<StoreLimits>;
  readonly #lockTimeoutMs: number | undefined;
  readonly #pruneOnFirstSpill: boolean;
  readonly #activeAgeMs: number | undefined;
  /** Session directories an append checked (and the base with them, while any is here). */
  readonly #checkedDirs = new Set<string>();

  constructor(options: FileStoreOptions = {}) {
    this.base = resolve(options.base ?? defaultBase());
    this.limits = Object.freeze({
      maxFileBytes: options.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      maxSessionBytes: options.maxSessionBytes ?? DEFAULT_LIMITS.maxSessionBytes,
      maxTotalBytes: options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes,
    });
    for (const [k, v] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(v) || v <= 0)
        throw new SpillwayError('SPILLWAY_BAD_CONFIG', `${k} must be a whole number > 0, got ${v}`);
    }
    this.#lockTimeoutMs = options.lockTimeoutMs;
    this.#pruneOnFirstSpill = options.pruneOnFirstSpill ?? true;
    this.#activeAgeMs = options.activeAgeMs;
  }

  get lockPath(): string {
    return `${this.base}.lock`;
  }

  pathOf(key: StoreKey): string {
    assertIdPart('directory', key.dir);
    assertIdPart('entry', key.name);
    return join(this.base, key.dir, `${key.name}.txt`);
  }

  /** Retention, once per base and process, before the first write to a session. */
  async #pruneOnce(dir: string): Promise<void> {
    if (!this.#pruneOnFirstSpill || dir === STASH_DIR || prunedBases.has(this.base)) return;
    prunedBases.add(this.base);
    await applyRetention(this.base, {
      keep: dir,
      maxTotalBytes: this.limits.maxTotalBytes,
      activeAgeMs: this.#activeAgeMs,
      lockTimeoutMs: this.#lockTimeoutMs,
    });
  }

  async put(key: StoreKey, body: Uint8Array, options: PutOptions = {}): Promise<PutResult> {
    const path = this.pathOf(key);
    await this.#pruneOnce(key.dir);
    const stored = cutAtUtf8Boundary(body, this.limits.maxFileBytes);
    await ensurePrivateDir(this.base, { parents: true, allowLink: true });
    return withLock(
      this.lockPath,
      async () => {
        const dir = join(this.base, key.dir);
        await ensurePrivateDir(dir);
        const replaced = (await this.stat(key))?.bytes ?? 0;
        const ledger = await this.#admit(await loadLedger(this.base), [[key.dir, stored.length - replaced]]);
        await writeFileAtomic(dir, `${key.name}.txt`, stored, { durable: options.durable !== false });
        ledger.total += stored.length - replaced;
        ledger.dirs[key.dir] = (ledger.dirs[key.dir] ?? 0) + stored.length - replaced;
        await saveLedger(this.base, ledger);
        return {
          storedBytes: stored.length,
          totalBytes: body.length,
          truncated: stored.length < body.length,
          path,
        };
      },
      { timeoutMs: this.#lockTimeoutMs },
    );
  }

  /** See {@link Store.append}: no lock, no temp file, no flush; the ledger learns the bytes later. */
  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    // A directory checked once (private, not a link: nobody else can change that in a 0700 base)
    // is not looked at again; every look is a system call on each turn's append.
    const checked = this.#checkedDirs.has(key.dir);
    let made = false;
    if (!checked) {
      await this.#pruneOnce(key.dir);
      if (this.#checkedDirs.size === 0) await ensurePrivateDir(this.base, { parents: true, allowLink: true });
      made = await ensurePrivateDir(join(this.base, key.dir));
      if (this.#checkedDirs.size >= MAX_CHECKED_DIRS) this.#checkedDirs.clear();
      this.#checkedDirs.add(key.dir);
    }
    let appended: boolean;
    try {
      appended = await appendPrivate(path, body, this.limits.maxFileBytes, { fresh: made });
    } catch (err) {
      // Its directory (or the base) may have been removed since it was checked: look again.
      this.#checkedDirs.clear();
      if (checked) return this.append(key, body);
      throw err;
    }
    if (!appended) throw entryFull(key, this.limits.maxFileBytes);
    noteUnledgered(this.base, key.dir, body.length);
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    if (await this.stat(key)) return false;
    await this.put(key, body);
    return true;
  }

  /** Every entry not stored yet, under one lock and one ledger update, the writes and their flushes
   * running side by side: a pass that stashes hundreds of originals pays for one put, not hundreds.
   * Nothing over quota is written; an entry that fails to write is left out of the ledger. */
  async putAllIfAbsent(entries: readonly StoreEntry[]): Promise<number> {
    for (const { key } of entries) this.pathOf(key);
    // Content-addressed entries are often there already: then there is nothing to lock for.
    const missing: StoreEntry[] = [];
    for (const entry of entries) if (!(await this.stat(entry.key))) missing.push(entry);
    if (missing.length === 0) return 0;
    await ensurePrivateDir(this.base, { parents: true, allowLink: true });
    return withLock(
      this.lockPath,
      async () => {
        const fresh = new Map<string, { key: StoreKey; body: Uint8Array }>();
        for (const { key, body } of missing) {
          const path = this.pathOf(key);
          if (fresh.has(path) || (await this.stat(key))) continue;
          fresh.set(path, { key, body: cutAtUtf8Boundary(body, this.limits.maxFileBytes) });
        }
        if (fresh.size === 0) return 0;
        const byDir = new Map<string, number>();
        for (const { key, body } of fresh.values())
          byDir.set(key.dir, (byDir.get(key.dir) ?? 0) + body.length);
        const ledger = await this.#admit(await loadLedger(this.base), [...byDir]);
        for (const dir of byDir.keys()) await ensurePrivateDir(join(this.base, dir));
        const failures: unknown[] = [];
        const queue = [...fresh.values()];
        const writer = async () => {
          for (let entry = queue.shift(); entry; entry = queue.shift()) {
            const { key, body } = entry;
            try {
              await writeFileAtomic(join(this.base, key.dir), `${key.name}.txt`, body);
              ledger.total += body.length;
              ledger.dirs[key.dir] = (ledger.dirs[key.dir] ?? 0) + body.length;
            } catch (err) {
              failures.push(err);
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, queue.length) }, writer));
        await saveLedger(this.base, ledger);
        if (failures.length > 0) throw failures[0];
        return fresh.size;
      },
      { timeoutMs: this.#lockTimeoutMs },
    );
  }

  /**
   * The ledger once `growth` (bytes added per directory) fits the quotas, making room the way
   * retention would when the total is over; throws SPILLWAY_QUOTA when it cannot fit.
   */
  async #admit(start: UsageLedger, growth: readonly [dir: string, bytes: number][]): Promise<UsageLedger> {
    let ledger = start;
    let added = 0;
    for (const [dir, bytes] of growth) {
      added += bytes;
      const session = ledger.dirs[dir] ?? 0;
      if (!sessionFits(this.limits, dir, session, bytes)) throw sessionQuotaError(this.limits, dir, session);
    }
    if (ledger.total + added <= this.limits.maxTotalBytes) return ledger;
    await applyRetentionLocked(this.base, {
      keep: growth.length === 1 ? (growth[0] as [string, number])[0] : STASH_DIR,
      maxTotalBytes: this.limits.maxTotalBytes - added,
      activeAgeMs: this.#activeAgeMs,
    });
    ledger = await loadLedger(this.base);
    if (ledger.total + added > this.limits.maxTotalBytes)
      throw totalQuotaError(this.limits, ledger.total, `the store at ${this.base}`, '; run "spillway prune"');
    return ledger;
  }

  async #checkDir(key: StoreKey): Promise<boolean> {
    const info = lstatQuick(join(this.base, key.dir));
    if (info?.isSymbolicLink()) throw linkRefused(join(this.base, key.dir));
    return info?.isDirectory() ?? false;
  }

  async get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key))) return null;
    const handle = await openPrivateForRead(path);
    if (!handle) return null;
    try {
      const size = (await handle.stat()).size;
      const start = Math.min(size, Math.max(0, range?.start ?? 0));
      const end = Math.min(size, Math.max(start, range?.end ?? size));
      const out = Buffer.alloc(end - start);
      for (let at = 0; at < out.length; ) {
        const { bytesRead } = await handle.read(out, at, out.length - at, start + at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return out;
    } finally {
      await handle.close();
    }
  }

  usedBytes = async (): Promise<number> => (await loadLedger(this.base)).total; // Appends not yet ledgered are not in it.

  async stat(key: StoreKey): Promise<EntryInfo | null> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key))) return null;
    const info = lstatQuick(path);
    return info?.isFile() ? { name: key.name, bytes: info.size, mtimeMs: info.mtimeMs } : null;
  }

  async list(dir?: string): Promise<EntryInfo[]> {
    const byName = (a: EntryInfo, b: EntryInfo) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    if (dir === undefined) {
      const scan = await scanBase(this.base);
      const dirs = scan.stash ? [...scan.sessions, scan.stash] : scan.sessions;
      return dirs.map((d) => ({ name: d.name, bytes: d.bytes, mtimeMs: d.newestMs })).sort(byName);
    }
    assertIdPart('directory', dir);
    const scan = await scanDir(join(this.base, dir), dir);
    return (scan?.files ?? [])
      .filter((f) => !f.temp)
      .map((f) => ({ name: f.name.slice(0, -'.txt'.length), bytes: f.bytes, mtimeMs: f.mtimeMs }))
      .sort(byName);
  }

  async delete(key: StoreKey): Promise<boolean> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key))) return false;
    return withLock(
      this.lockPath,
      async () => {
        try {
          const info = await lstat(path);
          if (!info.isFile()) return false;
          await unlink(path);
          const ledger = await loadLedger(this.base);
          ledger.total -= info.size;
          ledger.dirs[key.dir] = Math.max(0, (ledger.dirs[key.dir] ?? 0) - info.size);
          await saveLedger(this.base, ledger);
          return true;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw err;
        }
      },
      { timeoutMs: this.#lockTimeoutMs },
    );
  }
}
