import { SpillwayError } from '../errors.js';
import type { StoreKey } from './ids.js';

export const MiB = 1024 * 1024;

/** Quotas every store enforces; all configurable. */
export interface StoreLimits {
  /**
   * One body at most this many bytes; a longer one keeps its first bytes (default 64 MiB, the
   * proxy's request limit, so any tool result it takes is kept whole).
   */
  maxFileBytes: number;
  /** One session directory at most this many bytes (default 256 MiB). */
  maxSessionBytes: number;
  /** Everything together at most this many bytes (default 1 GiB). */
  maxTotalBytes: number;
}

export const DEFAULT_LIMITS: Readonly<StoreLimits> = Object.freeze({
  maxFileBytes: 64 * MiB,
  maxSessionBytes: 256 * MiB,
  maxTotalBytes: 1024 * MiB,
});

/**
 * The most of an output that is captured to be stashed (`spillway run`, a client's saved file,
 * the Codex spool): under one entry's limit with room for the note that says what was dropped
 * and for a tail the client kept, so the stash of any output, 1 GB included, still fits.
 */
export const MAX_CAPTURE_BYTES = DEFAULT_LIMITS.maxFileBytes - MiB;

export interface PutOptions {
  /**
   * False for small bookkeeping (frozen decisions) whose loss in a power cut costs only a cache
   * miss: skips the flush to disk. Bodies of outputs are always durable.
   */
  durable?: boolean;
}

/** One body and where it goes, for a batch of puts. */
export interface StoreEntry {
  readonly key: StoreKey;
  readonly body: Uint8Array;
}

/** What a put stored. */
export interface PutResult {
  /** Bytes stored (the first `maxFileBytes` of a longer body). */
  storedBytes: number;
  /** Bytes given. */
  totalBytes: number;
  /** True when only the first `storedBytes` bytes were kept. */
  truncated: boolean;
  /** Where it lives, for stores that have paths. */
  path?: string;
}

export interface EntryInfo {
  name: string;
  bytes: number;
  mtimeMs: number;
}

/** An inclusive start and exclusive end byte offset. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where spillway keeps full originals. Keys are validated before they reach a path or a key.
 * Every store spillway has is a {@link QuotaStore} over a backend (a {@link ByteStore}):
 * {@link MemoryStore} (tests, embedding), {@link FileStore} (default), the Redis and Redis
 * Cluster stores; a new backend is one ByteStore.
 *
 * @example
 * const store = new MemoryStore();
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('hello'));
 * (await store.get({ dir: 'sess', name: 'call' }, { start: 1, end: 3 }))?.toString(); // 'el'
 */
export interface Store {
  /** `file`, `memory`, `redis`: what kind of store this is (markers name paths only for files). */
  readonly kind: string;
  readonly limits: Readonly<StoreLimits>;
  /**
   * True when many processes write it at once (the Redis stores, behind a fleet of proxies):
   * a conversation's engine then reads the turns other proxies served before each of its own,
   * and its decisions are in the store before the request goes upstream.
   */
  readonly shared?: boolean;
  /**
   * Stores `body` atomically under `key`, replacing what was there. Cuts a body over
   * `maxFileBytes` at a UTF-8 boundary; throws `SPILLWAY_QUOTA` when the session or the total
   * would go over its quota, `SPILLWAY_IO` when it cannot write.
   */
  put(key: StoreKey, body: Uint8Array, options?: PutOptions): Promise<PutResult>;
  /** Stores `body` unless an entry already exists (content-addressed writes); true if written. */
  putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean>;
  /**
   * putIfAbsent for many entries at once, cheaper than one by one where the store can batch
   * (the file store: one lock, one ledger update, flushes side by side). Returns how many were
   * written. Stores without it get {@link putAllIfAbsent}'s loop.
   */
  putAllIfAbsent?(entries: readonly StoreEntry[]): Promise<number>;
  /**
   * Appends `body` to the entry under `key`, creating it: for logs of small records written
   * often (a session's frozen decisions). Each call's bytes land contiguous, after those of
   * every earlier call. Cheaper than a put (the file store takes no lock, writes no temp file,
   * does not flush, and counts the bytes in its quotas at its next locked write), so a crash
   * may lose the last appends or cut the last one short: a log's reader must skip a torn
   * record. Throws `SPILLWAY_QUOTA` when the entry would pass `maxFileBytes`.
   */
  append(key: StoreKey, body: Uint8Array): Promise<void>;
  /** The body, or the bytes of `range` clipped to it; null when there is no such key. */
  get(key: StoreKey, range?: ByteRange): Promise<Buffer | null>;
  stat(key: StoreKey): Promise<EntryInfo | null>;
  /** Directory names when `dir` is absent; entries of `dir` otherwise (sorted by name). */
  list(dir?: string): Promise<EntryInfo[]>;
  delete(key: StoreKey): Promise<boolean>;
  /** The file path of a key, for stores that have one. */
  pathOf?(key: StoreKey): string;
  /** The bytes stored now, against `limits.maxTotalBytes` (where the store keeps a total). */
  usedBytes?(): Promise<number>;
  /** Releases connections (the Redis store); a no-op elsewhere. */
  close?(): Promise<void>;
}

/**
 * The error of an append that would take an entry past `maxFileBytes`.
 *
 * @example
 * throw entryFull({ dir: 'sess', name: 'fz_log' }, store.limits.maxFileBytes);
 */
export function entryFull(key: StoreKey, maxFileBytes: number): SpillwayError {
  return new SpillwayError(
    'SPILLWAY_QUOTA',
    `the entry ${key.dir}/${key.name} would pass the limit of ${maxFileBytes} bytes for one entry`,
  );
}

/**
 * Cuts `body` to at most `max` bytes without splitting a UTF-8 sequence.
 *
 * @example
 * cutAtUtf8Boundary(Buffer.from('aé'), 2); // <Buffer 61> (é needs two bytes)
 */
export function cutAtUtf8Boundary(body: Uint8Array, max: number): Uint8Array {
  if (body.length <= max) return body;
  let end = Math.max(0, max);
  // Step back over continuation bytes (10xxxxxx), at most 3, to the start of a character.
  for (let back = 0; back < 3 && end > 0 && ((body[end] as number) & 0xc0) === 0x80; back++) end--;
  return body.subarray(0, end);
}

/**
 * Stores every entry not stored yet: in one batch where the store has one, else one by one.
 *
 * @example
 * await putAllIfAbsent(store, [{ key: stashKey(id), body }]);
 */
export async function putAllIfAbsent(store: Store, entries: readonly StoreEntry[]): Promise<number> {
  if (store.putAllIfAbsent) return store.putAllIfAbsent(entries);
  return putEachIfAbsent(store, entries);
}

/**
 * putIfAbsent of each entry in turn: the batch of a store that cannot batch.
 *
 * @example
 * await putEachIfAbsent(store, [{ key: stashKey(id), body }]); // 1 when it was not there
 */
export async function putEachIfAbsent(
  store: Pick<Store, 'putIfAbsent'>,
  entries: readonly StoreEntry[],
): Promise<number> {
  let written = 0;
  for (const { key, body } of entries) if (await store.putIfAbsent(key, body)) written++;
  return written;
}
