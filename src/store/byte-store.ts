import type { StoreKey } from './ids.js';
import type { ByteRange, EntryInfo, StoreEntry, StoreLimits } from './store.js';

/** How a write treats an entry that exists: replaces it, leaves it (`nx`), or adds to its end. */
export type WriteMode = 'put' | 'nx' | 'append';

/**
 * What one guarded write did: `stored` bytes written, or why nothing was: the entry exists
 * (`nx`), an append would pass `maxFileBytes` (`entry`), the session (`dir`, in a batch) or the
 * whole store would pass its quota (`held`: what it holds; `need`: the bytes to free for it to fit).
 */
export type WriteOutcome =
  | { readonly ok: true; readonly stored: number }
  | { readonly ok: false; readonly reason: 'exists' }
  | { readonly ok: false; readonly reason: 'entry'; readonly held: number }
  | { readonly ok: false; readonly reason: 'session'; readonly held: number; readonly dir?: string }
  | { readonly ok: false; readonly reason: 'total'; readonly held: number; readonly need: number };

/**
 * What a backend is: bytes under keys, and the usage of each directory and of the whole store
 * counted in a ledger that only {@link ByteStore.write} and the removals change, each as one
 * atomic step (a Lua script, the base's file lock, a synchronous update in memory). A backend
 * has no policy: it refuses a write that would pass a quota and says by how much; what to
 * remove then is decided once, above every backend ({@link QuotaStore}, with quota.ts). Ids
 * are validated before they become a path or a key.
 *
 * @example
 * const outcome = await bytes.write({ dir: 'sess', name: 'c1' }, body, 'put', limits);
 * if (!outcome.ok && outcome.reason === 'total') console.log(`free ${outcome.need} bytes first`);
 */
export interface ByteStore {
  /** `file`, `memory`, `redis`: what kind of store this is. */
  readonly kind: string;
  /** Names the store in errors: `the store at /home/me/.spillway/tool-results`. */
  readonly label: string;
  /** See {@link Store.shared}. */
  readonly shared?: boolean;
  /**
   * Writes `body` (cut already) under `key` by `mode` only when the entry, its session (the stash
   * is none) and the store stay within `limits`, counting its bytes in the same atomic step.
   * An append may skip the session and total checks where counting it later is the point (the
   * file store's appends take no lock); it never passes `maxFileBytes`.
   */
  write(
    key: StoreKey,
    body: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
    options?: { durable?: boolean },
  ): Promise<WriteOutcome>;
  /**
   * `nx` writes of many entries as one step where the backend can batch them (the file store:
   * one lock, one ledger update): all that are absent, or, over a quota, none. `stored` is how
   * many were written.
   */
  writeAll?(entries: readonly StoreEntry[], limits: Readonly<StoreLimits>): Promise<WriteOutcome>;
  read(key: StoreKey, range?: ByteRange): Promise<Buffer | null>;
  stat(key: StoreKey): Promise<EntryInfo | null>;
  /** Directories with their bytes and newest write when `dir` is absent; its entries otherwise (by name). */
  list(dir?: string): Promise<EntryInfo[]>;
  /** Removes one entry and its bytes from the usage; false when there was none. */
  remove(key: StoreKey): Promise<boolean>;
  /** Removes a whole directory and its bytes from the usage; the bytes it freed. */
  removeDir(dir: string): Promise<number>;
  /** The bytes the ledger counts now. */
  usedBytes(): Promise<number>;
  /** The file path of a key, for stores that have one. */
  pathOf?(key: StoreKey): string;
  close?(): Promise<void>;
}
