import { lstat, rmdir, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  appendPrivate,
  ensurePrivateDir,
  linkRefused,
  lstatQuick,
  openPrivateForRead,
  withLock,
  writeFileAtomic,
} from '../../home/index.js';
import type { ByteStore, WriteMode, WriteOutcome } from '../byte-store.js';
import { assertIdPart, type StoreKey } from '../ids.js';
import { refusal } from '../quota.js';
import type { ByteRange, EntryInfo, StoreEntry, StoreLimits } from '../store.js';
import { scanBase, scanDir } from './scan.js';
import { ledgerFromScan, loadLedger, noteUnledgered, saveLedger, type UsageLedger } from './usage-ledger.js';

/** Files written at once by writeAll: enough to overlap flushes, few enough for any fd limit. */
const PARALLEL_WRITES = 8;
/** Session directories an append remembers as checked; past this many, they are checked again. */
const MAX_CHECKED_DIRS = 4096;

/** Counts `bytes` (negative when freed) in the ledger's total and in `dir`'s usage. */
function count(ledger: UsageLedger, dir: string, bytes: number): void {
  ledger.total += bytes;
  ledger.dirs[dir] = Math.max(0, (ledger.dirs[dir] ?? 0) + bytes);
}

/**
 * The {@link ByteStore} on disk: `{base}/{session}/{call}.txt` and `{base}/pruned/{id}.txt`,
 * directories 0700, files 0600 (looser ones tightened), atomic writes, no symbolic link followed
 * inside the base. Its ledger is `{base}/.usage.json`, changed under the lock file
 * `{base}.lock` by every process that writes, so a write's quota check and its count are one
 * step across processes. Appends take no lock: the ledger learns their bytes at the next locked
 * write.
 *
 * @example
 * const bytes = new FileBytes('/tmp/spill');
 * bytes.pathOf({ dir: 'sess', name: 'call_1' }); // '/tmp/spill/sess/call_1.txt'
 */
export class FileBytes implements ByteStore {
  readonly kind = 'file';
  readonly base: string;
  readonly label: string;
  readonly #lockTimeoutMs: number | undefined;
  /** Session directories an append checked (and the base with them, while any is here). */
  readonly #checkedDirs = new Set<string>();
  /** Runs before the first write to a directory that is not the stash (the store's retention). */
  readonly #beforeFirstWrite: (dir: string) => Promise<void>;

  constructor(base: string, lockTimeoutMs?: number, beforeFirstWrite = async (_dir: string) => {}) {
    this.base = resolve(base);
    this.label = `the store at ${this.base}`;
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#beforeFirstWrite = beforeFirstWrite;
  }

  get lockPath(): string {
    return `${this.base}.lock`;
  }

  #locked<T>(fn: () => Promise<T>): Promise<T> {
    return withLock(this.lockPath, fn, { timeoutMs: this.#lockTimeoutMs });
  }

  pathOf(key: StoreKey): string {
    assertIdPart('directory', key.dir);
    assertIdPart('entry', key.name);
    return join(this.base, key.dir, `${key.name}.txt`);
  }

  async write(
    key: StoreKey,
    body: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
    options: { durable?: boolean } = {},
  ): Promise<WriteOutcome> {
    if (mode === 'append') return this.#append(key, body, limits);
    this.pathOf(key);
    if (mode === 'nx' && (await this.stat(key))) return { ok: false, reason: 'exists' };
    await this.#beforeFirstWrite(key.dir);
    await ensurePrivateDir(this.base, { parents: true, allowLink: true });
    return this.#locked(async () => {
      const existing = await this.stat(key);
      if (mode === 'nx' && existing) return { ok: false, reason: 'exists' } as const;
      const growth = body.length - (existing?.bytes ?? 0);
      const { ledger, refused } = await this.#admit([[key.dir, growth]], limits);
      if (refused) return refused;
      const dir = join(this.base, key.dir);
      await ensurePrivateDir(dir);
      await writeFileAtomic(dir, `${key.name}.txt`, body, { durable: options.durable !== false });
      count(ledger, key.dir, growth);
      await saveLedger(this.base, ledger);
      return { ok: true, stored: body.length } as const;
    });
  }

  /** No lock, no temp file, no flush; the ledger learns the bytes later (see {@link Store.append}). */
  async #append(key: StoreKey, body: Uint8Array, limits: Readonly<StoreLimits>): Promise<WriteOutcome> {
    const path = this.pathOf(key);
    // A directory checked once (private, not a link: nobody else can change that in a 0700 base)
    // is not looked at again; every look is a system call on each turn's append.
    const checked = this.#checkedDirs.has(key.dir);
    let made = false;
    if (!checked) {
      await this.#beforeFirstWrite(key.dir);
      if (this.#checkedDirs.size === 0) await ensurePrivateDir(this.base, { parents: true, allowLink: true });
      made = await ensurePrivateDir(join(this.base, key.dir));
      if (this.#checkedDirs.size >= MAX_CHECKED_DIRS) this.#checkedDirs.clear();
      this.#checkedDirs.add(key.dir);
    }
    let appended: boolean;
    try {
      appended = await appendPrivate(path, body, limits.maxFileBytes, { fresh: made });
    } catch (err) {
      // Its directory (or the base) may have been removed since it was checked: look again.
      this.#checkedDirs.clear();
      if (checked) return this.#append(key, body, limits);
      throw err;
    }
    if (!appended) return { ok: false, reason: 'entry', held: (await this.stat(key))?.bytes ?? 0 };
    noteUnledgered(this.base, key.dir, body.length);
    return { ok: true, stored: body.length };
  }

  /** Every entry not stored yet, under one lock and one ledger update, the writes and their flushes
   * running side by side: a pass that stashes hundreds of originals pays for one put, not hundreds.
   * Nothing over quota is written; an entry that fails to write is left out of the ledger. */
  async writeAll(entries: readonly StoreEntry[], limits: Readonly<StoreLimits>): Promise<WriteOutcome> {
    for (const { key } of entries) this.pathOf(key);
    // Content-addressed entries are often there already: then there is nothing to lock for.
    const missing: StoreEntry[] = [];
    for (const entry of entries) if (!(await this.stat(entry.key))) missing.push(entry);
    if (missing.length === 0) return { ok: true, stored: 0 };
    await ensurePrivateDir(this.base, { parents: true, allowLink: true });
    return this.#locked(async () => {
      const fresh = new Map<string, StoreEntry>();
      for (const entry of missing) {
        const path = this.pathOf(entry.key);
        if (!fresh.has(path) && !(await this.stat(entry.key))) fresh.set(path, entry);
      }
      if (fresh.size === 0) return { ok: true, stored: 0 } as const;
      const byDir = new Map<string, number>();
      for (const { key, body } of fresh.values()) byDir.set(key.dir, (byDir.get(key.dir) ?? 0) + body.length);
      const { ledger, refused } = await this.#admit([...byDir], limits);
      if (refused) return refused;
      for (const dir of byDir.keys()) await ensurePrivateDir(join(this.base, dir));
      const failures: unknown[] = [];
      const queue = [...fresh.values()];
      const writer = async () => {
        for (let entry = queue.shift(); entry; entry = queue.shift()) {
          try {
            await writeFileAtomic(join(this.base, entry.key.dir), `${entry.key.name}.txt`, entry.body);
            count(ledger, entry.key.dir, entry.body.length);
          } catch (err) {
            failures.push(err);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, queue.length) }, writer));
      await saveLedger(this.base, ledger);
      if (failures.length > 0) throw failures[0];
      return { ok: true, stored: fresh.size } as const;
    });
  }

  /**
   * The ledger, and the refusal of `growth` if it does not fit. Under the lock. Over the total,
   * the ledger is counted again from a scan first (it may still count files removed behind its
   * back), so room is never made for bytes that are not there.
   */
  async #admit(
    growth: readonly [dir: string, bytes: number][],
    limits: Readonly<StoreLimits>,
  ): Promise<{ ledger: UsageLedger; refused: WriteOutcome | null }> {
    let ledger = await loadLedger(this.base);
    const held = (dir: string) => ledger.dirs[dir] ?? 0;
    let refused = refusal(limits, ledger.total, held, growth);
    if (refused && !refused.ok && refused.reason === 'total') {
      ledger = ledgerFromScan(await scanBase(this.base));
      await saveLedger(this.base, ledger);
      refused = refusal(limits, ledger.total, held, growth);
    }
    return { ledger, refused };
  }

  async #checkDir(dir: string): Promise<boolean> {
    const path = join(this.base, dir);
    const info = lstatQuick(path);
    if (info?.isSymbolicLink()) throw linkRefused(path);
    return info?.isDirectory() ?? false;
  }

  async read(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key.dir))) return null;
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

  /** The ledger's total (appends not yet ledgered are not in it). */
  async usedBytes(): Promise<number> {
    return (await loadLedger(this.base)).total;
  }

  async stat(key: StoreKey): Promise<EntryInfo | null> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key.dir))) return null;
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

  async remove(key: StoreKey): Promise<boolean> {
    const path = this.pathOf(key);
    if (!(await this.#checkDir(key.dir))) return false;
    return this.#locked(async () => {
      try {
        const info = await lstat(path);
        if (!info.isFile()) return false;
        await unlink(path);
        const ledger = await loadLedger(this.base);
        count(ledger, key.dir, -info.size);
        await saveLedger(this.base, ledger);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    });
  }

  /** Removes what spillway wrote in `dir` (the directory too, once empty); never follows a link. */
  async removeDir(dir: string): Promise<number> {
    assertIdPart('directory', dir);
    if (!(await this.#checkDir(dir))) return 0;
    return this.#locked(async () => {
      const scan = await scanDir(join(this.base, dir), dir);
      if (!scan) return 0;
      let freed = 0;
      for (const f of scan.files) {
        await unlink(f.path).then(
          () => (freed += f.bytes),
          () => {},
        );
      }
      // Only empties what spillway wrote; a directory holding anything else stays.
      await rmdir(scan.path).catch(() => {});
      // What the ledger counted for it goes, whatever the disk held: bytes another process
      // appended and the ledger never counted are not taken off twice.
      const ledger = await loadLedger(this.base);
      count(ledger, dir, -(ledger.dirs[dir] ?? 0));
      delete ledger.dirs[dir];
      await saveLedger(this.base, ledger);
      return freed;
    });
  }
}
