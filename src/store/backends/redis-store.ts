import type { StoreKey } from '../ids.js';
import {
  cutAtUtf8Boundary,
  type PutOptions,
  type PutResult,
  type Store,
  type StoreLimits,
} from '../store.js';
import {
  checkKey,
  connectOrExplain,
  putRefusal,
  type RedisSettings,
  type RedisStoreOptions,
  redactUrl,
  redisFailure,
  redisSettings,
} from './redis-common.js';
import { STORE_DEADLINE_MS, withDeadline } from './redis-deadline.js';
import { importRedis } from './redis-import.js';
import { type RedisBufferReads, RedisReader, RedisReadingStore, type RedisReads } from './redis-reads.js';
import { DELETE_SCRIPT, PUT_SCRIPT } from './redis-scripts.js';

export { type RedisStoreOptions, redactUrl } from './redis-common.js';

// The parts of node-redis this store uses; the package is an optional peer, imported on demand.
interface RedisClient extends RedisReads {
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
  destroy?(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  isReady: boolean;
  eval(script: string, options: { arguments: (string | Buffer)[] }): Promise<unknown>;
  withTypeMapping(mapping: Record<number, unknown>): RedisBufferReads;
}

/**
 * A {@link Store} in Redis, for fleets of proxies: a marker written through one proxy is
 * recalled through any other, and frozen decisions are shared. Quotas are checked and applied in
 * one Lua script (atomic across proxies); TTLs give the file store's retention; ids are
 * validated before they become keys. When Redis goes away, operations fail at once (no offline
 * queue), callers fall back (the proxy sends the result whole, counting stash_failed), and the client reconnects
 * with backoff on its own.
 *
 * @example
 * const store = await RedisStore.connect('redis://127.0.0.1:6379/0');
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('output'));
 */
export class RedisStore extends RedisReadingStore implements Store {
  readonly kind = 'redis';
  readonly shared = true;
  readonly limits: Readonly<StoreLimits>;
  readonly url: string;
  readonly #client: RedisClient;
  protected readonly reads: RedisReader;
  readonly #prefix: string;
  readonly #keepAgeMs: number;
  readonly #activeAgeMs: number;

  private constructor(url: string, client: RedisClient, buffers: RedisBufferReads, settings: RedisSettings) {
    super();
    this.url = url;
    this.#client = client;
    this.limits = settings.limits;
    this.#prefix = settings.prefix;
    const p = settings.prefix;
    this.reads = new RedisReader(client, buffers, {
      body: (dir, name) => `${p}:b:${dir}:${name}`,
      names: (dir) => `${p}:n:${dir}`,
      use: `${p}:use`,
      dirs: `${p}:dirs`,
    });
    this.#keepAgeMs = settings.keepAgeMs;
    this.#activeAgeMs = settings.activeAgeMs;
  }

  /**
   * Connects, or fails with a clear error when Redis cannot be reached.
   *
   * @example
   * const store = await RedisStore.connect(process.env.SPILLWAY_STORE ?? 'redis://127.0.0.1:6379');
   */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const settings = redisSettings(options);
    const redis = await importRedis();
    const client = await connectOrExplain(
      (reconnectStrategy) =>
        redis.createClient({
          url,
          disableOfflineQueue: true,
          socket: { connectTimeout: options.connectTimeoutMs ?? 3000, reconnectStrategy },
        }) as unknown as RedisClient,
      `Redis at ${redactUrl(url)}`,
      'is redis-server running there?',
    );
    const timed = withDeadline(client, options.deadlineMs ?? STORE_DEADLINE_MS, `Redis at ${redactUrl(url)}`);
    const buffers = timed.withTypeMapping({ [redis.RESP_TYPES.BLOB_STRING]: Buffer });
    return new RedisStore(url, timed, buffers, settings);
  }

  async #put(
    key: StoreKey,
    body: Uint8Array,
    mode: 'put' | 'nx' | 'append',
  ): Promise<{ status: number; value: number; stored: number }> {
    checkKey(key);
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
      throw redisFailure('put', err);
    }
    const [status, value] = reply as [number, number];
    const refused = putRefusal(status, value, key, this.limits, 'the Redis store');
    if (refused) throw refused;
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

  async delete(key: StoreKey): Promise<boolean> {
    checkKey(key);
    try {
      return (await this.#client.eval(DELETE_SCRIPT, { arguments: [this.#prefix, key.dir, key.name] })) === 1;
    } catch (err) {
      throw redisFailure('delete', err);
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
