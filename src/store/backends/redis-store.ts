import type { ByteStore, WriteMode, WriteOutcome } from '../byte-store.js';
import { assertIdPart, type StoreKey } from '../ids.js';
import type { StoreLimits } from '../store.js';
import {
  checkKey,
  connectOrExplain,
  outcomeOf,
  RedisQuotaStore,
  type RedisSettings,
  type RedisStoreOptions,
  redactUrl,
  redisFailure,
  redisSettings,
} from './redis-common.js';
import { STORE_DEADLINE_MS, withDeadline } from './redis-deadline.js';
import { importRedis } from './redis-import.js';
import { type RedisBufferReads, RedisReader, RedisReadingBytes, type RedisReads } from './redis-reads.js';
import { DELETE_SCRIPT, DROP_DIR_SCRIPT, PUT_SCRIPT } from './redis-scripts.js';

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
 * The {@link ByteStore} on one Redis: each write is one Lua script (quota check, write and
 * count atomic for every proxy sharing the server); TTLs give the file store's retention by age.
 *
 * @example
 * const bytes = new RedisBytes(client, buffers, redisSettings({}));
 */
export class RedisBytes extends RedisReadingBytes implements ByteStore {
  readonly kind = 'redis';
  readonly label = 'the Redis store';
  readonly shared = true;
  readonly #client: RedisClient;
  protected readonly reads: RedisReader;
  readonly #prefix: string;
  readonly #keepAgeMs: number;

  constructor(client: RedisClient, buffers: RedisBufferReads, settings: RedisSettings) {
    super();
    this.#client = client;
    const p = settings.prefix;
    this.#prefix = p;
    this.reads = new RedisReader(client, buffers, {
      body: (dir, name) => `${p}:b:${dir}:${name}`,
      names: (dir) => `${p}:n:${dir}`,
      use: `${p}:use`,
      dirs: `${p}:dirs`,
      stashSizes: `${p}:sz:pruned`,
    });
    this.#keepAgeMs = settings.keepAgeMs;
  }

  async #eval(what: string, script: string, args: (string | Buffer)[]): Promise<unknown> {
    try {
      return await this.#client.eval(script, { arguments: [this.#prefix, ...args] });
    } catch (err) {
      throw redisFailure(what, err);
    }
  }

  async write(
    key: StoreKey,
    body: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
  ): Promise<WriteOutcome> {
    checkKey(key);
    const reply = await this.#eval('put', PUT_SCRIPT, [
      key.dir,
      key.name,
      Buffer.from(body.buffer, body.byteOffset, body.byteLength),
      String(Date.now()),
      String(this.#keepAgeMs),
      String(limits.maxSessionBytes),
      String(limits.maxTotalBytes),
      mode,
      String(limits.maxFileBytes),
    ]);
    return outcomeOf(reply as number[]);
  }

  async remove(key: StoreKey): Promise<boolean> {
    checkKey(key);
    return (await this.#eval('delete', DELETE_SCRIPT, [key.dir, key.name])) === 1;
  }

  async removeDir(dir: string): Promise<number> {
    assertIdPart('directory', dir);
    return Number(await this.#eval('delete', DROP_DIR_SCRIPT, [dir]));
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
 * A {@link Store} in Redis, for fleets of proxies: a marker written through one proxy is
 * recalled through any other, and frozen decisions are shared. The quotas above the Redis
 * backend ({@link RedisBytes}); ids are validated before they become keys. When Redis goes
 * away, operations fail at once (no offline queue), callers fall back (the proxy sends the
 * result whole, counting stash_failed), and the client reconnects with backoff on its own.
 *
 * @example
 * const store = await RedisStore.connect('redis://127.0.0.1:6379/0');
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('output'));
 */
export class RedisStore extends RedisQuotaStore {
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
    return new RedisStore(url, new RedisBytes(timed, buffers, settings), settings);
  }
}
