import { assertIdPart, FROZEN_PREFIX, STASH_DIR, type StoreKey } from '../ids.js';
import {
  ACTIVE_AGE_MS,
  evictions,
  idleEvictions,
  isLive,
  type SessionUsage,
  sessionFits,
  sessionQuotaError,
  stashIdsNamed,
  totalQuotaError,
} from '../quota.js';
import {
  type ByteRange,
  cutAtUtf8Boundary,
  DEFAULT_LIMITS,
  type EntryInfo,
  entryFull,
  type PutOptions,
  type PutResult,
  type Store,
  type StoreLimits,
} from '../store.js';

function check(key: StoreKey): string {
  assertIdPart('directory', key.dir);
  assertIdPart('entry', key.name);
  return `${key.dir}/${key.name}`;
}

/** One entry's bytes: the first `length` of `data`, which an append grows with room to spare. */
interface Entry {
  data: Buffer;
  length: number;
  mtimeMs: number;
}

const bodyOf = (entry: Entry): Buffer => entry.data.subarray(0, entry.length);

/** A directory's newest write, as the other stores date a session. */
function newestOf(entries: Map<string, Entry>): number {
  let newest = 0;
  for (const entry of entries.values()) newest = Math.max(newest, entry.mtimeMs);
  return newest;
}

/**
 * A {@link Store} in memory, with the same quotas and semantics as the file store. For tests
 * and for embedding where nothing may touch the disk. The usage of each directory is kept as
 * entries change, so a write costs the same with one session or ten thousand, and an append
 * copies only its own bytes.
 *
 * @example
 * const store = new MemoryStore({ maxSessionBytes: 1024 });
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly limits: Readonly<StoreLimits>;
  /** Entries by directory, each directory's in the order they were first written. */
  readonly #dirs = new Map<string, Map<string, Entry>>();
  readonly #dirBytes = new Map<string, number>();
  #total = 0;
  readonly #now: () => number;
  readonly #activeAgeMs: number;

  constructor(limits: Partial<StoreLimits> = {}, now: () => number = Date.now, activeAgeMs = ACTIVE_AGE_MS) {
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, ...limits });
    this.#now = now;
    this.#activeAgeMs = activeAgeMs;
  }

  #entry(key: StoreKey): Entry | undefined {
    check(key);
    return this.#dirs.get(key.dir)?.get(key.name);
  }

  /**
   * Throws SPILLWAY_QUOTA unless `key.dir` may grow by `growth` bytes, making room in the total
   * the way the other stores do (the oldest idle sessions, then the oldest stash entries no live
   * session names; never `key` itself nor its session).
   */
  #admit(key: StoreKey, growth: number): void {
    const session = this.#dirBytes.get(key.dir) ?? 0;
    if (!sessionFits(this.limits, key.dir, session, growth))
      throw sessionQuotaError(this.limits, key.dir, session);
    if (this.#total + growth > this.limits.maxTotalBytes)
      this.#makeRoom(this.#total + growth - this.limits.maxTotalBytes, key);
    if (this.#total + growth > this.limits.maxTotalBytes) throw totalQuotaError(this.limits, this.#total);
  }

  /** Counts `growth` bytes (negative when freed) in the usage of `dir` and of the store. */
  #count(dir: string, growth: number): void {
    this.#dirBytes.set(dir, (this.#dirBytes.get(dir) ?? 0) + growth);
    this.#total += growth;
  }

  #set(key: StoreKey, entry: Entry): void {
    let dir = this.#dirs.get(key.dir);
    if (!dir) {
      dir = new Map();
      this.#dirs.set(key.dir, dir);
    }
    dir.set(key.name, entry);
  }

  async put(key: StoreKey, body: Uint8Array, _options?: PutOptions): Promise<PutResult> {
    const stored = Buffer.from(cutAtUtf8Boundary(body, this.limits.maxFileBytes));
    const old = this.#entry(key)?.length ?? 0;
    this.#admit(key, stored.length - old);
    this.#set(key, { data: stored, length: stored.length, mtimeMs: this.#now() });
    this.#count(key.dir, stored.length - old);
    return { storedBytes: stored.length, totalBytes: body.length, truncated: stored.length < body.length };
  }

  /** Frees at least `need` bytes by the quota rules (quota.ts), as the other stores do. */
  #makeRoom(need: number, writing: StoreKey): void {
    const liveness = { keep: writing.dir, now: this.#now(), activeAgeMs: this.#activeAgeMs };
    const sessions: SessionUsage[] = [];
    for (const [name, entries] of this.#dirs)
      if (name !== STASH_DIR)
        sessions.push({ name, bytes: this.#dirBytes.get(name) ?? 0, newestMs: newestOf(entries) });
    let freed = 0;
    for (const session of idleEvictions(sessions, need, liveness)) {
      freed += session.bytes;
      for (const name of [...(this.#dirs.get(session.name)?.keys() ?? [])])
        this.#remove({ dir: session.name, name });
    }
    if (freed >= need) return;
    const logs: string[] = [];
    for (const session of sessions) {
      if (!isLive(session, liveness)) continue;
      for (const [name, entry] of this.#dirs.get(session.name) ?? [])
        if (name.startsWith(FROZEN_PREFIX)) logs.push(bodyOf(entry).toString('utf8'));
    }
    const spared = stashIdsNamed(logs);
    if (writing.dir === STASH_DIR) spared.add(writing.name);
    const stash = [...(this.#dirs.get(STASH_DIR) ?? [])].map(([name, e]) => ({ name, bytes: e.length }));
    for (const { name } of evictions(stash, need - freed, spared)) this.#remove({ dir: STASH_DIR, name });
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    if (this.#entry(key)) return false;
    await this.put(key, body);
    return true;
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    const entry = this.#entry(key);
    const length = entry?.length ?? 0;
    if (length + body.length > this.limits.maxFileBytes) throw entryFull(key, this.limits.maxFileBytes);
    this.#admit(key, body.length);
    let data = entry?.data ?? Buffer.alloc(0);
    if (length + body.length > data.length) {
      // Room for as much again: a log of n appends is copied O(log n) times, not n.
      const grown = Buffer.alloc(
        Math.min(this.limits.maxFileBytes, Math.max(2 * (length + body.length), 256)),
      );
      data.copy(grown, 0, 0, length);
      data = grown;
    }
    data.set(body, length);
    this.#set(key, { data, length: length + body.length, mtimeMs: this.#now() });
    this.#count(key.dir, body.length);
  }

  async get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const entry = this.#entry(key);
    if (!entry) return null;
    const body = bodyOf(entry);
    if (!range) return Buffer.from(body);
    return Buffer.from(body.subarray(Math.max(0, range.start), Math.max(0, range.end)));
  }

  /** See {@link Store.usedBytes}. */
  async usedBytes(): Promise<number> {
    return this.#total;
  }

  async stat(key: StoreKey): Promise<EntryInfo | null> {
    const entry = this.#entry(key);
    return entry ? { name: key.name, bytes: entry.length, mtimeMs: entry.mtimeMs } : null;
  }

  async list(dir?: string): Promise<EntryInfo[]> {
    const out: EntryInfo[] = [];
    if (dir !== undefined) {
      assertIdPart('directory', dir);
      for (const [name, entry] of this.#dirs.get(dir) ?? [])
        out.push({ name, bytes: entry.length, mtimeMs: entry.mtimeMs });
    } else {
      for (const [name, entries] of this.#dirs) {
        out.push({ name, bytes: this.#dirBytes.get(name) ?? 0, mtimeMs: newestOf(entries) });
      }
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Deletes an entry and its bytes from the usage; a directory left empty goes with it. */
  #remove(key: StoreKey): boolean {
    const entries = this.#dirs.get(key.dir);
    const entry = entries?.get(key.name);
    if (!entries || !entry) return false;
    entries.delete(key.name);
    this.#count(key.dir, -entry.length);
    if (entries.size === 0) {
      this.#dirs.delete(key.dir);
      this.#dirBytes.delete(key.dir);
    }
    return true;
  }

  async delete(key: StoreKey): Promise<boolean> {
    check(key);
    return this.#remove(key);
  }
}
