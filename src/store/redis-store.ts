import { SpillwayError } from '../errors.js';
import { assertIdPart, STASH_DIR, type StoreKey } from './ids.js';
import { DELETE_SCRIPT, PUT_SCRIPT } from './redis-scripts.js';
import { DAY_MS } from './retention.js';
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

/** Entries whose size a listing asks for at once. */
const LIST_BATCH = 1000;

export interface RedisStoreOptions extends Partial<StoreLimits> {
  /** Key prefix, so several deployments can share one Redis (default "spillway"). */
  prefix?: string;
  /** Stash entries and idle sessions expire after this (default 30 days, as the file store). */
  keepAgeMs?: number;
  /** Sessions that wrote within this are never removed to make room (default 15 minutes). */
  activeAgeMs?: number;
  /** How long a first connection may take before the store gives up (default 3 s). */
  connectTimeoutMs?: number;
}

// The parts of node-redis this store uses; the package is an optional peer, imported on demand.
interface RedisClient {
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
  destroy?(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  isReady: boolean;
  eval(script: string, options: { arguments: (string | Buffer)[] }): Promise<unknown>;
  exists(key: string): Promise<number>;
  strLen(key: string): Promise<number>;
  zScore(key: string, member: string): Promise<number | null>;
  zRangeWithScores(key: string, min: number, max: number): Promise<{ value: string; score: number }[]>;
  hGetAll(key: string): Promise<Record<string, string>>;
  withTypeMapping(mapping: Record<number, unknown>): RedisClient & {
    getRange(key: string, start: number, end: number): Promise<Buffer>;
    get(key: string): Promise<Buffer | null>;
  };
}

function idsOf(key: StoreKey): void {
  assertIdPart('directory', key.dir);
  assertIdPart('entry', key.name);
}

/**
 * A {@link Store} in Redis, for fleets of proxies: a marker written through one proxy is
 * recalled through any other, and frozen decisions are shared. Quotas are checked and applied in
 * one Lua script (atomic across proxies); TTLs give the file store's retention; ids are
 * validated before they become keys. When Redis goes away, operations fail at once (no offline
 * queue), callers fall back (the proxy snips, counting stash_failed), and the client reconnects
 * with backoff on its own.
 *
 * @example
 * const store = await RedisStore.connect('redis://127.0.0.1:6379/0');
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('output'));
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  readonly limits: Readonly<StoreLimits>;
  readonly url: string;
  readonly #client: RedisClient;
  readonly #buffers: ReturnType<RedisClient['withTypeMapping']>;
  readonly #prefix: string;
  readonly #keepAgeMs: number;
  readonly #activeAgeMs: number;

  private constructor(
    url: string,
    client: RedisClient,
    buffers: ReturnType<RedisClient['withTypeMapping']>,
    options: RedisStoreOptions,
  ) {
    this.url = url;
    this.#client = client;
    this.#buffers = buffers;
    this.limits = Object.freeze({
      maxFileBytes: options.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      maxSessionBytes: options.maxSessionBytes ?? DEFAULT_LIMITS.maxSessionBytes,
      maxTotalBytes: options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes,
    });
    this.#prefix = options.prefix ?? 'spillway';
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(this.#prefix))
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `invalid Redis key prefix "${this.#prefix}": use 1-64 of A-Z a-z 0-9 _ . -`,
      );
    this.#keepAgeMs = options.keepAgeMs ?? 30 * DAY_MS;
    this.#activeAgeMs = options.activeAgeMs ?? 15 * 60 * 1000;
  }

  /**
   * Connects, or fails with a clear error when Redis cannot be reached.
   *
   * @example
   * const store = await RedisStore.connect(process.env.SPILLWAY_STORE ?? 'redis://127.0.0.1:6379');
   */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    let redis: typeof import('redis');
    try {
      redis = await import('redis');
    } catch (err) {
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        'the Redis store needs the "redis" package: npm install redis@6.3.1',
        { cause: err },
      );
    }
    let connected = false;
    let lastError: Error | undefined;
    const client = redis.createClient({
      url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 3000,
        // Before the first connection, give up (a clear error at start); after it, retry with
        // backoff for as long as it takes, so a restarted Redis is picked up without a restart.
        reconnectStrategy: (retries: number, cause: Error) =>
          connected ? Math.min(50 * 2 ** retries, 2000) : cause,
      },
    }) as unknown as RedisClient;
    client.on('error', (err) => {
      lastError = err;
    });
    try {
      await client.connect();
    } catch (err) {
      client.destroy?.();
      const why = (err as Error).message || lastError?.message || String(err);
      throw new SpillwayError(
        'SPILLWAY_IO',
        `cannot connect to Redis at ${redactUrl(url)}: ${why}; is redis-server running there?`,
        { cause: err },
      );
    }
    connected = true;
    const buffers = client.withTypeMapping({ [redis.RESP_TYPES.BLOB_STRING]: Buffer });
    return new RedisStore(url, client, buffers, options);
  }

  #key(key: StoreKey): string {
    idsOf(key);
    return `${this.#prefix}:b:${key.dir}:${key.name}`;
  }

  #wrap(what: string, err: unknown): SpillwayError {
    if (SpillwayError.isInstance(err)) return err;
    return new SpillwayError('SPILLWAY_IO', `Redis ${what} failed: ${(err as Error).message}`, {
      cause: err,
    });
  }

  async #put(
    key: StoreKey,
    body: Uint8Array,
    mode: 'put' | 'nx' | 'append',
  ): Promise<{ status: number; value: number; stored: number }> {
    idsOf(key);
    const stored = mode === 'append' ? body : cutAtUtf8Boundary(body, this.limits.maxFileBytes);
    let reply: unknown;
    try {
      reply = await this.#client.eval(PUT_SCRIPT, {
        arguments: [
          this.#prefix,
          key.dir,
          key.name,
          Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength),
          String(Date.now()),
          String(this.#keepAgeMs),
          String(this.#activeAgeMs),
          String(this.limits.maxSessionBytes),
          String(this.limits.maxTotalBytes),
          mode,
          String(this.limits.maxFileBytes),
        ],
      });
    } catch (err) {
      throw this.#wrap('put', err);
    }
    const [status, value] = reply as [number, number];
    if (status === -3) throw entryFull(key, this.limits.maxFileBytes);
    if (status === -1) {
      throw new SpillwayError(
        'SPILLWAY_QUOTA',
        `session "${key.dir}" would exceed its quota of ${this.limits.maxSessionBytes} bytes (it holds ${value})`,
      );
    }
    if (status === -2) {
      throw new SpillwayError(
        'SPILLWAY_QUOTA',
        `the Redis store would exceed its total quota of ${this.limits.maxTotalBytes} bytes (it holds ${value})`,
      );
    }
    return { status, value, stored: stored.length };
  }

  async put(key: StoreKey, body: Uint8Array, _options?: PutOptions): Promise<PutResult> {
    const { stored } = await this.#put(key, body, 'put');
    return { storedBytes: stored, totalBytes: body.length, truncated: stored < body.length };
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    return (await this.#put(key, body, 'nx')).status === 1;
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    await this.#put(key, body, 'append');
  }

  async get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    const k = this.#key(key);
    try {
      if (!range) return (await this.#buffers.get(k)) ?? null;
      if (!(await this.#client.exists(k))) return null;
      const start = Math.max(0, range.start);
      const end = Math.max(start, range.end);
      if (end === start) return Buffer.alloc(0);
      return Buffer.from(await this.#buffers.getRange(k, start, end - 1));
    } catch (err) {
      throw this.#wrap('get', err);
    }
  }

  async stat(key: StoreKey): Promise<EntryInfo | null> {
    const k = this.#key(key);
    try {
      if (!(await this.#client.exists(k))) return null;
      const [bytes, mtime] = await Promise.all([
        this.#client.strLen(k),
        this.#client.zScore(`${this.#prefix}:n:${key.dir}`, key.name),
      ]);
      return { name: key.name, bytes, mtimeMs: mtime ?? 0 };
    } catch (err) {
      throw this.#wrap('stat', err);
    }
  }

  async list(dir?: string): Promise<EntryInfo[]> {
    try {
      if (dir === undefined) {
        const use = await this.#client.hGetAll(`${this.#prefix}:use`);
        const dirs = await this.#client.zRangeWithScores(`${this.#prefix}:dirs`, 0, -1);
        const out = dirs.map((d) => ({ name: d.value, bytes: Number(use[d.value] ?? 0), mtimeMs: d.score }));
        const stash = await this.#client.zRangeWithScores(`${this.#prefix}:n:${STASH_DIR}`, 0, -1);
        // reduce, not Math.max(...): a stash of 130,000 entries would overflow the stack as arguments.
        const newest = stash.reduce((m, s) => Math.max(m, s.score), -Infinity);
        if (stash.length > 0)
          out.push({ name: STASH_DIR, bytes: Number(use[STASH_DIR] ?? 0), mtimeMs: newest });
        return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }
      assertIdPart('directory', dir);
      const names = await this.#client.zRangeWithScores(`${this.#prefix}:n:${dir}`, 0, -1);
      // Asked a thousand at a time, so the client pipelines them: a round trip per thousand
      // entries, not two per entry.
      const out: EntryInfo[] = [];
      for (let at = 0; at < names.length; at += LIST_BATCH) {
        const batch = await Promise.all(
          names.slice(at, at + LIST_BATCH).map(async (n) => {
            const k = `${this.#prefix}:b:${dir}:${n.value}`;
            const [exists, bytes] = await Promise.all([this.#client.exists(k), this.#client.strLen(k)]);
            return exists ? { name: n.value, bytes, mtimeMs: n.score } : undefined;
          }),
        );
        for (const e of batch) if (e) out.push(e);
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (err) {
      throw this.#wrap('list', err);
    }
  }

  async delete(key: StoreKey): Promise<boolean> {
    idsOf(key);
    try {
      return (await this.#client.eval(DELETE_SCRIPT, { arguments: [this.#prefix, key.dir, key.name] })) === 1;
    } catch (err) {
      throw this.#wrap('delete', err);
    }
  }

  async close(): Promise<void> {
    try {
      await this.#client.quit();
    } catch {
      this.#client.destroy?.();
    }
  }
}

/**
 * A Redis URL with any password hidden, for messages and logs.
 *
 * @example
 * redactUrl('redis://:secret@host:6379/0'); // 'redis://:***@host:6379/0'
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an invalid URL)';
  }
}
