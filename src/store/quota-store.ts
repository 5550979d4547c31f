import type { ByteStore, WriteMode, WriteOutcome } from './byte-store.js';
import { STASH_DIR, type StoreKey } from './ids.js';
import { ACTIVE_AGE_MS, ROOM_MARGIN_SHARE, sessionQuotaError, totalQuotaError } from './quota.js';
import { makeRoom } from './room.js';
import {
  type ByteRange,
  cutAtUtf8Boundary,
  type EntryInfo,
  entryFull,
  type PutOptions,
  type PutResult,
  putEachIfAbsent,
  type Store,
  type StoreEntry,
  type StoreLimits,
} from './store.js';

/** The quota policy over a backend: its limits, and the clock that tells live sessions from idle. */
export interface QuotaOptions {
  limits: Readonly<StoreLimits>;
  /** Sessions that wrote within this are never removed to make room (default 15 minutes). */
  activeAgeMs?: number | undefined;
  now?: () => number;
  /** Said after a total-quota error: what the user can do (`; run "spillway prune"`). */
  hint?: string;
}

/**
 * A {@link Store} over any {@link ByteStore}: cuts bodies to `maxFileBytes`, turns a backend's
 * refusals into `SPILLWAY_QUOTA` errors, and, when a write would take the store past its total,
 * makes room by the one over-total rule ({@link planRoom}) and tries once more. Every store
 * spillway has (memory, file, Redis, Redis Cluster) is one of these over its backend, so no
 * backend holds quota policy.
 *
 * @example
 * const store = new QuotaStore(new MemoryBytes(), { limits: DEFAULT_LIMITS });
 * await store.put({ dir: 'sess', name: 'c1' }, Buffer.from('output'));
 */
export class QuotaStore implements Store {
  readonly kind: string;
  readonly limits: Readonly<StoreLimits>;
  readonly shared?: boolean;
  /** The backend under the quotas. */
  readonly bytes: ByteStore;
  readonly #activeAgeMs: number;
  readonly #now: () => number;
  readonly #hint: string;

  constructor(bytes: ByteStore, options: QuotaOptions) {
    this.bytes = bytes;
    this.kind = bytes.kind;
    if (bytes.shared) this.shared = true;
    this.limits = Object.freeze({ ...options.limits });
    this.#activeAgeMs = options.activeAgeMs ?? ACTIVE_AGE_MS;
    this.#now = options.now ?? Date.now;
    this.#hint = options.hint ?? '';
  }

  /**
   * Frees `need` bytes for a write to `keys` (their sessions live, their stash ids spared) and a
   * margin, so the next writes find room (see {@link ROOM_MARGIN_SHARE}).
   */
  async #makeRoom(need: number, keys: readonly StoreKey[]): Promise<void> {
    const liveness = {
      keep: new Set(keys.map((k) => k.dir).filter((d) => d !== STASH_DIR)),
      now: this.#now(),
      activeAgeMs: this.#activeAgeMs,
    };
    const spare = new Set(keys.filter((k) => k.dir === STASH_DIR).map((k) => k.name));
    const margin = Math.floor(this.limits.maxTotalBytes * ROOM_MARGIN_SHARE);
    await makeRoom(this.bytes, need + margin, liveness, spare);
  }

  /**
   * The outcome of a write run by `write`, which runs it again once room is made when the store
   * was full; a refusal becomes its error. Takes the first outcome so the common write (it
   * fits) costs one call and no closure.
   */
  async #settle(
    first: WriteOutcome,
    key: StoreKey,
    keys: readonly StoreKey[],
    write: () => Promise<WriteOutcome>,
  ): Promise<WriteOutcome> {
    let outcome = first;
    if (!outcome.ok && outcome.reason === 'total') {
      await this.#makeRoom(outcome.need, keys);
      outcome = await write();
    }
    if (outcome.ok || outcome.reason === 'exists') return outcome;
    if (outcome.reason === 'entry') throw entryFull(key, this.limits.maxFileBytes);
    if (outcome.reason === 'session')
      throw sessionQuotaError(this.limits, outcome.dir ?? key.dir, outcome.held);
    throw totalQuotaError(this.limits, outcome.held, this.bytes.label, this.#hint);
  }

  /** A refusal of a write by `mode`, settled: room made and written again, or its error. */
  #refused(outcome: WriteOutcome, key: StoreKey, body: Uint8Array, mode: WriteMode, options?: PutOptions) {
    return this.#settle(outcome, key, [key], () => this.bytes.write(key, body, mode, this.limits, options));
  }

  async put(key: StoreKey, body: Uint8Array, options?: PutOptions): Promise<PutResult> {
    const stored = cutAtUtf8Boundary(body, this.limits.maxFileBytes);
    // The common write (it fits) costs one call to the backend, nothing more.
    const outcome = await this.bytes.write(key, stored, 'put', this.limits, options);
    if (!outcome.ok) await this.#refused(outcome, key, stored, 'put', options);
    const result: PutResult = {
      storedBytes: stored.length,
      totalBytes: body.length,
      truncated: stored.length < body.length,
    };
    if (this.bytes.pathOf) result.path = this.bytes.pathOf(key);
    return result;
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    const stored = cutAtUtf8Boundary(body, this.limits.maxFileBytes);
    const outcome = await this.bytes.write(key, stored, 'nx', this.limits);
    if (outcome.ok || outcome.reason === 'exists') return outcome.ok;
    return (await this.#refused(outcome, key, stored, 'nx')).ok;
  }

  /** See {@link Store.putAllIfAbsent}: one step where the backend batches, else one by one. */
  async putAllIfAbsent(entries: readonly StoreEntry[]): Promise<number> {
    const writeAll = this.bytes.writeAll?.bind(this.bytes);
    if (!writeAll) return putEachIfAbsent(this, entries);
    if (entries.length === 0) return 0;
    const cut = entries.map(({ key, body }) => ({
      key,
      body: cutAtUtf8Boundary(body, this.limits.maxFileBytes),
    }));
    const keys = cut.map((e) => e.key);
    const first = keys.find((k) => k.dir !== STASH_DIR) ?? (keys[0] as StoreKey);
    const outcome = await this.#settle(await writeAll(cut, this.limits), first, keys, () =>
      writeAll(cut, this.limits),
    );
    return outcome.ok ? outcome.stored : 0;
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    const outcome = await this.bytes.write(key, body, 'append', this.limits);
    if (!outcome.ok) await this.#refused(outcome, key, body, 'append');
  }

  get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    return this.bytes.read(key, range);
  }

  stat(key: StoreKey): Promise<EntryInfo | null> {
    return this.bytes.stat(key);
  }

  list(dir?: string): Promise<EntryInfo[]> {
    return this.bytes.list(dir);
  }

  delete(key: StoreKey): Promise<boolean> {
    return this.bytes.remove(key);
  }

  /** See {@link Store.usedBytes}. */
  usedBytes(): Promise<number> {
    return this.bytes.usedBytes();
  }

  async close(): Promise<void> {
    await this.bytes.close?.();
  }
}
