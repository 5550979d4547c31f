import { SpillwayError } from '../errors.js';
import { assertIdPart, FROZEN_PREFIX, NAMED_STASH_ID, STASH_DIR, type StoreKey } from './ids.js';
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
} from './store.js';

function check(key: StoreKey): string {
  assertIdPart('directory', key.dir);
  assertIdPart('entry', key.name);
  return `${key.dir}/${key.name}`;
}

/**
 * A {@link Store} in memory, with the same quotas and semantics as the file store. For tests
 * and for embedding where nothing may touch the disk.
 *
 * @example
 * const store = new MemoryStore({ maxSessionBytes: 1024 });
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly limits: Readonly<StoreLimits>;
  readonly #bodies = new Map<string, { body: Buffer; mtimeMs: number }>();
  readonly #now: () => number;

  constructor(limits: Partial<StoreLimits> = {}, now: () => number = Date.now) {
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, ...limits });
    this.#now = now;
  }

  async put(key: StoreKey, body: Uint8Array, _options?: PutOptions): Promise<PutResult> {
    const id = check(key);
    const stored = Buffer.from(cutAtUtf8Boundary(body, this.limits.maxFileBytes));
    const old = this.#bodies.get(id)?.body.length ?? 0;
    let session = 0;
    let total = 0;
    for (const [k, v] of this.#bodies) {
      total += v.body.length;
      if (k.startsWith(`${key.dir}/`)) session += v.body.length;
    }
    if (key.dir !== STASH_DIR && session - old + stored.length > this.limits.maxSessionBytes) {
      throw new SpillwayError(
        'SPILLWAY_QUOTA',
        `session "${key.dir}" would exceed its quota of ${this.limits.maxSessionBytes} bytes`,
      );
    }
    if (total - old + stored.length > this.limits.maxTotalBytes)
      total -= this.#evictStash(total - old + stored.length - this.limits.maxTotalBytes, id);
    if (total - old + stored.length > this.limits.maxTotalBytes) {
      throw new SpillwayError(
        'SPILLWAY_QUOTA',
        `the store would exceed its total quota of ${this.limits.maxTotalBytes} bytes`,
      );
    }
    this.#bodies.set(id, { body: stored, mtimeMs: this.#now() });
    return { storedBytes: stored.length, totalBytes: body.length, truncated: stored.length < body.length };
  }

  /**
   * Frees at least `need` bytes by deleting the oldest stash entries (a Map iterates in write
   * order) that no frozen decision names, as the other stores do; returns the bytes freed.
   */
  #evictStash(need: number, writing: string): number {
    const named = new Set<string>();
    for (const [k, v] of this.#bodies)
      if (k.split('/')[1]?.startsWith(FROZEN_PREFIX))
        for (const m of v.body.toString('utf8').matchAll(NAMED_STASH_ID)) named.add((m[1] ?? m[2]) as string);
    let freed = 0;
    for (const [k, v] of this.#bodies) {
      if (freed >= need) break;
      const [dir, name] = k.split('/') as [string, string];
      if (dir !== STASH_DIR || k === writing || named.has(name)) continue;
      this.#bodies.delete(k);
      freed += v.body.length;
    }
    return freed;
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    if (this.#bodies.has(check(key))) return false;
    await this.put(key, body);
    return true;
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    const old = this.#bodies.get(check(key))?.body ?? Buffer.alloc(0);
    if (old.length + body.length > this.limits.maxFileBytes) throw entryFull(key, this.limits.maxFileBytes);
    await this.put(key, Buffer.concat([old, body]));
  }

  async get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const entry = this.#bodies.get(check(key));
    if (!entry) return null;
    if (!range) return Buffer.from(entry.body);
    return Buffer.from(entry.body.subarray(Math.max(0, range.start), Math.max(0, range.end)));
  }

  async stat(key: StoreKey): Promise<EntryInfo | null> {
    const entry = this.#bodies.get(check(key));
    return entry ? { name: key.name, bytes: entry.body.length, mtimeMs: entry.mtimeMs } : null;
  }

  async list(dir?: string): Promise<EntryInfo[]> {
    const out = new Map<string, EntryInfo>();
    if (dir !== undefined) assertIdPart('directory', dir);
    for (const [k, v] of this.#bodies) {
      const [d, name] = k.split('/') as [string, string];
      if (dir === undefined) {
        const prev = out.get(d);
        out.set(d, {
          name: d,
          bytes: (prev?.bytes ?? 0) + v.body.length,
          mtimeMs: Math.max(prev?.mtimeMs ?? 0, v.mtimeMs),
        });
      } else if (d === dir) out.set(name, { name, bytes: v.body.length, mtimeMs: v.mtimeMs });
    }
    return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async delete(key: StoreKey): Promise<boolean> {
    return this.#bodies.delete(check(key));
  }
}
