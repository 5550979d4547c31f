import type { ByteStore, WriteMode, WriteOutcome } from '../byte-store.js';
import { assertIdPart, type StoreKey } from '../ids.js';
import { refusal } from '../quota.js';
import { QuotaStore } from '../quota-store.js';
import { type ByteRange, DEFAULT_LIMITS, type EntryInfo, type StoreLimits } from '../store.js';

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
 * The {@link ByteStore} in memory: each write is one synchronous step, so its quota check and
 * its count are atomic. The usage of each directory is kept as entries change, so a write costs
 * the same with one session or ten thousand, and an append copies only its own bytes.
 *
 * @example
 * const bytes = new MemoryBytes();
 * await bytes.write({ dir: 'sess', name: 'c1' }, Buffer.from('x'), 'put', DEFAULT_LIMITS);
 */
export class MemoryBytes implements ByteStore {
  readonly kind = 'memory';
  readonly label = 'the memory store';
  /** Entries by directory, each directory's in the order they were first written. */
  readonly #dirs = new Map<string, Map<string, Entry>>();
  readonly #dirBytes = new Map<string, number>();
  #total = 0;
  readonly #held = (dir: string): number => this.#dirBytes.get(dir) ?? 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #entry(key: StoreKey): Entry | undefined {
    check(key);
    return this.#dirs.get(key.dir)?.get(key.name);
  }

  /** Counts `growth` bytes (negative when freed) in the usage of `dir` and of the store. */
  #count(dir: string, growth: number): void {
    this.#dirBytes.set(dir, (this.#dirBytes.get(dir) ?? 0) + growth);
    this.#total += growth;
  }

  async write(
    key: StoreKey,
    body: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
  ): Promise<WriteOutcome> {
    const entry = this.#entry(key);
    if (mode === 'nx' && entry) return { ok: false, reason: 'exists' };
    const length = entry?.length ?? 0;
    if (mode === 'append' && length + body.length > limits.maxFileBytes)
      return { ok: false, reason: 'entry', held: length };
    const growth = mode === 'append' ? body.length : body.length - length;
    const refused = refusal(limits, this.#total, this.#held, [[key.dir, growth]]);
    if (refused) return refused;
    const data =
      mode === 'append' ? this.#grown(entry, length + body.length, limits) : Buffer.alloc(body.length);
    data.set(body, mode === 'append' ? length : 0);
    let dir = this.#dirs.get(key.dir);
    if (!dir) {
      dir = new Map();
      this.#dirs.set(key.dir, dir);
    }
    dir.set(key.name, {
      data,
      length: mode === 'append' ? length + body.length : body.length,
      mtimeMs: this.#now(),
    });
    this.#count(key.dir, growth);
    return { ok: true, stored: body.length };
  }

  /** The buffer of an entry with room for `length` bytes: as much again, so n appends copy O(log n) times. */
  #grown(entry: Entry | undefined, length: number, limits: Readonly<StoreLimits>): Buffer {
    const data = entry?.data ?? Buffer.alloc(0);
    if (length <= data.length) return data;
    const grown = Buffer.alloc(Math.min(limits.maxFileBytes, Math.max(2 * length, 256)));
    data.copy(grown, 0, 0, entry?.length ?? 0);
    return grown;
  }

  async read(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const entry = this.#entry(key);
    if (!entry) return null;
    const body = bodyOf(entry);
    if (!range) return Buffer.from(body);
    return Buffer.from(body.subarray(Math.max(0, range.start), Math.max(0, range.end)));
  }

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

  async remove(key: StoreKey): Promise<boolean> {
    check(key);
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

  async removeDir(dir: string): Promise<number> {
    assertIdPart('directory', dir);
    const freed = this.#dirBytes.get(dir) ?? 0;
    if (!this.#dirs.delete(dir)) return 0;
    this.#dirBytes.delete(dir);
    this.#total -= freed;
    return freed;
  }
}

/**
 * A {@link Store} in memory, with the same quotas and semantics as the file store. For tests
 * and for embedding where nothing may touch the disk.
 *
 * @example
 * const store = new MemoryStore({ maxSessionBytes: 1024 });
 */
export class MemoryStore extends QuotaStore {
  constructor(limits: Partial<StoreLimits> = {}, now: () => number = Date.now, activeAgeMs?: number) {
    super(new MemoryBytes(now), { limits: { ...DEFAULT_LIMITS, ...limits }, now, activeAgeMs });
  }
}
