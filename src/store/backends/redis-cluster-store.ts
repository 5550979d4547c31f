import { SpillwayError } from '../../errors.js';
import type { ByteStore, WriteMode, WriteOutcome } from '../byte-store.js';
import { assertIdPart, STASH_DIR, type StoreKey } from '../ids.js';
import type { StoreLimits } from '../store.js';
import { type ClusterClient, connectCluster } from './redis-cluster-client.js';
import { type ClusterKeys, clusterKeys, keySlot } from './redis-cluster-keys.js';
import {
  ADJUST_SCRIPT,
  BODY_DELETE_SCRIPT,
  BODY_PUT_SCRIPT,
  DROP_DIR_SCRIPT,
  RESERVE_SCRIPT,
} from './redis-cluster-scripts.js';
import {
  checkKey,
  outcomeOf,
  RedisQuotaStore,
  type RedisSettings,
  type RedisStoreOptions,
  redisFailure,
  redisSettings,
} from './redis-common.js';
import { STORE_DEADLINE_MS, withDeadline } from './redis-deadline.js';
import { RedisReader, RedisReadingBytes } from './redis-reads.js';

export interface RedisClusterStoreOptions extends RedisStoreOptions {
  /**
   * How long a write waits for a replica of its shard to hold it before it counts as failed
   * (default 1000 ms). A shard with no replica is not waited for.
   */
  replicaWaitMs?: number;
}

/**
 * The {@link ByteStore} on a Redis Cluster: bodies spread over every shard (one hash tag per
 * session and per stash id), so memory grows with shards and a master's loss is survived by
 * its replica. Usage is kept in one ledger (a slot of its own): each write first reserves its
 * bytes there, atomically for every proxy, then writes its body on its shard and waits until a
 * replica holds it, so a marker is never sent for an original a failover could lose.
 *
 * @example
 * const bytes = new RedisClusterBytes(client, settings, 1000, typeMap);
 */
export class RedisClusterBytes extends RedisReadingBytes implements ByteStore {
  readonly kind = 'redis';
  readonly label = 'the Redis Cluster store';
  readonly shared = true;
  readonly #client: ClusterClient;
  protected readonly reads: RedisReader;
  readonly #keys: ClusterKeys;
  readonly #keepAgeMs: number;
  readonly #waitMs: number;

  constructor(
    client: ClusterClient,
    settings: RedisSettings,
    waitMs: number,
    typeMap: Record<number, unknown>,
  ) {
    super();
    this.#client = client;
    this.#keepAgeMs = settings.keepAgeMs;
    this.#waitMs = waitMs;
    const keys = clusterKeys(settings.prefix);
    this.#keys = keys;
    this.reads = new RedisReader(client, client.withTypeMapping(typeMap), {
      body: (dir, name) => keys.body({ dir, name }),
      names: keys.names,
      use: keys.use,
      dirs: keys.dirs,
      stashSizes: keys.stashSizes,
    });
  }

  async #eval(script: string, keys: string[], args: (string | Buffer)[]): Promise<number[]> {
    return (await this.#client.eval(script, { keys, arguments: args })) as number[];
  }

  /** Corrects the ledger; best effort, after a failure that is reported anyway. */
  async #adjust(key: StoreKey, diff: number, size: string): Promise<void> {
    if (diff === 0 && size === '') return;
    await this.#eval(ADJUST_SCRIPT, this.#keys.ledger, [key.dir, key.name, String(diff), size]);
  }

  async write(
    key: StoreKey,
    body: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
  ): Promise<WriteOutcome> {
    checkKey(key);
    try {
      return await this.#write(key, body, mode, limits);
    } catch (err) {
      throw redisFailure(mode === 'append' ? 'append' : 'put', err);
    }
  }

  async #write(
    key: StoreKey,
    data: Uint8Array,
    mode: WriteMode,
    limits: Readonly<StoreLimits>,
  ): Promise<WriteOutcome> {
    const stash = key.dir === STASH_DIR;
    const bodyKey = this.#keys.body(key);
    const keys = stash ? [bodyKey] : [bodyKey, this.#keys.names(key.dir)];
    const now = String(Date.now());
    if (mode === 'nx' && (await this.#client.exists(bodyKey))) return { ok: false, reason: 'exists' };
    // An absent body has length 0: a new entry's write needs no second look.
    const before = mode === 'nx' ? 0 : await this.#client.strLen(bodyKey);
    if (mode === 'append' && before + data.length > limits.maxFileBytes)
      return { ok: false, reason: 'entry', held: before };
    const prior = mode === 'append' ? 0 : before;
    const reserved = outcomeOf(
      await this.#eval(RESERVE_SCRIPT, this.#keys.ledger, [
        key.dir,
        key.name,
        String(data.length),
        String(prior),
        now,
        String(this.#keepAgeMs),
        String(limits.maxSessionBytes),
        String(limits.maxTotalBytes),
      ]),
    );
    if (!reserved.ok) return reserved;
    // What the reservation assumed: given back if the body is not written.
    const undo = () =>
      this.#adjust(key, prior - data.length, stash ? (before > 0 ? String(before) : '0') : '');
    let reply: number[];
    try {
      reply = await this.#eval(BODY_PUT_SCRIPT, keys, [
        Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        mode,
        String(this.#keepAgeMs),
        String(limits.maxFileBytes),
        now,
        key.name,
      ]);
    } catch (err) {
      await undo().catch(() => {});
      throw err;
    }
    const [written = 0, replaced = 0, extend = 0] = reply;
    if (written === 0) {
      // Another proxy wrote the same entry first (its content, its address): its ledger record
      // stands; only the bytes reserved twice are given back.
      await this.#adjust(key, prior - data.length, '');
      return { ok: false, reason: 'exists' };
    }
    if (written !== 1) {
      await undo();
      return { ok: false, reason: 'entry', held: replaced };
    }
    // Another proxy changed the entry between the look and the write: count what was replaced.
    if (mode !== 'append' && replaced !== prior)
      await this.#adjust(key, prior - replaced, stash ? String(data.length) : '');
    if (extend === 1) await this.#extend(key.dir);
    await this.#replicated(key, bodyKey);
    return { ok: true, stored: data.length };
  }

  /** Waits until a replica of the body's shard holds it, when the shard has one. */
  async #replicated(key: StoreKey, bodyKey: string): Promise<void> {
    if (!this.#client.slots[keySlot(bodyKey)]?.replicas?.length) return;
    const acked = Number(await this.#client.sendCommand(bodyKey, false, ['WAIT', '1', String(this.#waitMs)]));
    if (acked < 1)
      throw new SpillwayError(
        'SPILLWAY_IO',
        `the write of ${key.dir}/${key.name} reached no replica within ${this.#waitMs} ms, so a failover could lose it; it does not count as kept`,
      );
  }

  /** Pushes back the expiry of a session's bodies (a session lives the keep age past its newest write). */
  async #extend(dir: string): Promise<void> {
    const names = await this.#client.zRange(this.#keys.names(dir), 0, -1);
    await Promise.all(
      names.map((name) => this.#client.pExpire(this.#keys.body({ dir, name }), this.#keepAgeMs)),
    );
  }

  async remove(key: StoreKey): Promise<boolean> {
    checkKey(key);
    const stash = key.dir === STASH_DIR;
    const bodyKey = this.#keys.body(key);
    try {
      const keys = stash ? [bodyKey] : [bodyKey, this.#keys.names(key.dir)];
      const len = Number(await this.#client.eval(BODY_DELETE_SCRIPT, { keys, arguments: [key.name] }));
      if (len >= 0 || stash) await this.#adjust(key, -Math.max(0, len), stash ? '0' : '');
      return len >= 0;
    } catch (err) {
      throw redisFailure('delete', err);
    }
  }

  /** Takes a session out of the ledger, then deletes its bodies (one slot: one DEL per 500 keys). */
  async removeDir(dir: string): Promise<number> {
    assertIdPart('directory', dir);
    try {
      if (dir === STASH_DIR) {
        let freed = 0;
        for (const e of await this.list(STASH_DIR))
          if (await this.remove({ dir, name: e.name })) freed += e.bytes;
        return freed;
      }
      const held = Number(
        await this.#client.eval(DROP_DIR_SCRIPT, { keys: this.#keys.ledger, arguments: [dir] }),
      );
      const namesKey = this.#keys.names(dir);
      const names = await this.#client.zRange(namesKey, 0, -1);
      const keys = [namesKey, ...names.map((name) => this.#keys.body({ dir, name }))];
      for (let at = 0; at < keys.length; at += 500) await this.#client.del(keys.slice(at, at + 500));
      return held;
    } catch (err) {
      throw redisFailure('delete', err);
    }
  }

  async close(): Promise<void> {
    try {
      await this.#client.close();
    } catch {
      this.#client.destroy();
    }
  }
}

/**
 * A {@link Store} on a Redis Cluster, for fleets that outgrow one Redis: the quotas above the
 * cluster backend ({@link RedisClusterBytes}).
 *
 * @example
 * const store = await RedisClusterStore.connect('redis-cluster://10.0.0.1:7000,10.0.0.2:7000');
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('output'));
 */
export class RedisClusterStore extends RedisQuotaStore {
  /**
   * Connects to the cluster through any of its nodes, or fails with a clear error.
   *
   * @example
   * const store = await RedisClusterStore.connect(process.env.SPILLWAY_STORE ?? '');
   */
  static async connect(url: string, options: RedisClusterStoreOptions = {}): Promise<RedisClusterStore> {
    const settings = redisSettings(options);
    const { client, redacted, typeMap } = await connectCluster(url, options.connectTimeoutMs ?? 3000);
    const timed = withDeadline(
      client,
      options.deadlineMs ?? STORE_DEADLINE_MS,
      `the Redis Cluster at ${redacted}`,
    );
    const bytes = new RedisClusterBytes(timed, settings, options.replicaWaitMs ?? 1000, typeMap);
    return new RedisClusterStore(redacted, bytes, settings);
  }
}
