import { SpillwayError } from '../../errors.js';
import { FROZEN_PREFIX, NAMED_STASH_ID, STASH_DIR, type StoreKey } from '../ids.js';
import { cutAtUtf8Boundary, entryFull, type PutResult, type Store, type StoreLimits } from '../store.js';
import { type ClusterClient, connectCluster } from './redis-cluster-client.js';
import { type ClusterKeys, clusterKeys, keySlot } from './redis-cluster-keys.js';
import {
  ADJUST_SCRIPT,
  BODY_DELETE_SCRIPT,
  BODY_PUT_SCRIPT,
  RESERVE_SCRIPT,
} from './redis-cluster-scripts.js';
import {
  checkKey,
  putRefusal,
  type RedisSettings,
  type RedisStoreOptions,
  redisFailure,
  redisSettings,
} from './redis-common.js';
import { STORE_DEADLINE_MS, withDeadline } from './redis-deadline.js';
import { RedisReader, RedisReadingStore } from './redis-reads.js';

export interface RedisClusterStoreOptions extends RedisStoreOptions {
  /**
   * How long a write waits for a replica of its shard to hold it before it counts as failed
   * (default 1000 ms). A shard with no replica is not waited for.
   */
  replicaWaitMs?: number;
}

/** Stash ids a frozen decision's body names, at most 256 (more than a batch of decisions holds). */
function namedIds(key: StoreKey, body: Uint8Array): string {
  if (key.dir === STASH_DIR || !key.name.startsWith(FROZEN_PREFIX)) return '';
  const ids = new Set<string>();
  for (const m of Buffer.from(body).toString('utf8').matchAll(NAMED_STASH_ID)) {
    ids.add(m[1] ?? m[2] ?? '');
    if (ids.size >= 256) break;
  }
  ids.delete('');
  return [...ids].join(' ');
}

/**
 * A {@link Store} on a Redis Cluster, for fleets that outgrow one Redis: bodies spread over
 * every shard (one hash tag per session and per stash id), so memory grows with shards and a
 * master's loss is survived by its replica. Quotas are kept in one ledger (a slot of its own):
 * each write first reserves its bytes there, atomically for every proxy, then writes its body
 * on its shard and waits until a replica holds it, so a marker is never sent for an original a
 * failover could lose. What eviction removes from the ledger is queued and deleted by the next
 * write of any proxy.
 *
 * @example
 * const store = await RedisClusterStore.connect('redis-cluster://10.0.0.1:7000,10.0.0.2:7000');
 * await store.put({ dir: 'sess', name: 'call' }, Buffer.from('output'));
 */
export class RedisClusterStore extends RedisReadingStore implements Store {
  readonly kind = 'redis';
  readonly shared = true;
  readonly limits: Readonly<StoreLimits>;
  readonly url: string;
  readonly #client: ClusterClient;
  protected readonly reads: RedisReader;
  readonly #keys: ClusterKeys;
  readonly #settings: RedisSettings;
  readonly #waitMs: number;

  private constructor(
    url: string,
    client: ClusterClient,
    settings: RedisSettings,
    waitMs: number,
    typeMap: Record<number, unknown>,
  ) {
    super();
    this.url = url;
    this.#client = client;
    this.#settings = settings;
    this.limits = settings.limits;
    this.#waitMs = waitMs;
    const keys = clusterKeys(this.#settings.prefix);
    this.#keys = keys;
    this.reads = new RedisReader(client, client.withTypeMapping(typeMap), {
      body: (dir, name) => keys.body({ dir, name }),
      names: keys.names,
      use: keys.use,
      dirs: keys.dirs,
    });
  }

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
    return new RedisClusterStore(redacted, timed, settings, options.replicaWaitMs ?? 1000, typeMap);
  }

  async #eval(script: string, keys: string[], args: (string | Buffer)[]): Promise<number[]> {
    return (await this.#client.eval(script, { keys, arguments: args })) as number[];
  }

  /** Corrects the ledger; best effort, after a failure that is reported anyway. */
  async #adjust(key: StoreKey, diff: number, size: string): Promise<void> {
    if (diff === 0 && size === '') return;
    await this.#eval(ADJUST_SCRIPT, this.#keys.ledger, [key.dir, key.name, String(diff), size]);
  }

  /** The bytes stored, or null when mode is nx and the entry exists. */
  async #write(key: StoreKey, body: Uint8Array, mode: 'put' | 'nx' | 'append'): Promise<number | null> {
    checkKey(key);
    const { limits, keepAgeMs, activeAgeMs } = this.#settings;
    const data = mode === 'append' ? body : cutAtUtf8Boundary(body, limits.maxFileBytes);
    const stash = key.dir === STASH_DIR;
    const bodyKey = this.#keys.body(key);
    const keys = stash ? [bodyKey] : [bodyKey, this.#keys.names(key.dir)];
    const now = String(Date.now());
    if (mode === 'nx' && (await this.#client.exists(bodyKey))) return null;
    // An absent body has length 0: a new entry's write needs no second look.
    const before = mode === 'nx' ? 0 : await this.#client.strLen(bodyKey);
    if (mode === 'append' && before + data.length > limits.maxFileBytes)
      throw entryFull(key, limits.maxFileBytes);
    const prior = mode === 'append' ? 0 : before;
    const [status = 0, held = 0, doomed = 0] = await this.#eval(RESERVE_SCRIPT, this.#keys.ledger, [
      key.dir,
      key.name,
      String(data.length),
      String(prior),
      now,
      String(keepAgeMs),
      String(activeAgeMs),
      String(limits.maxSessionBytes),
      String(limits.maxTotalBytes),
      namedIds(key, data),
    ]);
    if (doomed > 0) await this.#drain();
    const refused = putRefusal(status, held, key, limits, 'the Redis Cluster store');
    if (refused) throw refused;
    // What the reservation assumed: given back if the body is not written.
    const undo = () =>
      this.#adjust(key, prior - data.length, stash ? (before > 0 ? String(before) : '0') : '');
    let reply: number[];
    try {
      reply = await this.#eval(BODY_PUT_SCRIPT, keys, [
        Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        mode,
        String(keepAgeMs),
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
      return null;
    }
    if (written !== 1) {
      await undo();
      throw entryFull(key, limits.maxFileBytes);
    }
    // Another proxy changed the entry between the look and the write: count what was replaced.
    if (mode !== 'append' && replaced !== prior)
      await this.#adjust(key, prior - replaced, stash ? String(data.length) : '');
    if (extend === 1) await this.#extend(key.dir);
    await this.#replicated(key, bodyKey);
    return data.length;
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
      names.map((name) => this.#client.pExpire(this.#keys.body({ dir, name }), this.#settings.keepAgeMs)),
    );
  }

  /** Deletes the bodies eviction took out of the ledger (any proxy's), 64 at a time, up to 1,024. */
  async #drain(): Promise<void> {
    for (let round = 0; round < 16; round++) {
      const doomed = await this.#client.lPopCount(this.#keys.doomed, 64);
      if (!doomed?.length) return;
      await Promise.all(
        doomed.map(async (item) => {
          const [kind, id = ''] = item.split(' ');
          if (kind === 'x') return this.#client.del(this.#keys.body({ dir: STASH_DIR, name: id }));
          const namesKey = this.#keys.names(id);
          const names = await this.#client.zRange(namesKey, 0, -1);
          // One slot (the session's tag), so one DEL per 500 keys.
          const keys = [namesKey, ...names.map((name) => this.#keys.body({ dir: id, name }))];
          for (let at = 0; at < keys.length; at += 500) await this.#client.del(keys.slice(at, at + 500));
        }),
      );
    }
  }

  async put(key: StoreKey, body: Uint8Array): Promise<PutResult> {
    try {
      const stored = (await this.#write(key, body, 'put')) ?? 0;
      return { storedBytes: stored, totalBytes: body.length, truncated: stored < body.length };
    } catch (err) {
      throw redisFailure('put', err);
    }
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    try {
      return (await this.#write(key, body, 'nx')) !== null;
    } catch (err) {
      throw redisFailure('put', err);
    }
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    try {
      await this.#write(key, body, 'append');
    } catch (err) {
      throw redisFailure('append', err);
    }
  }

  async delete(key: StoreKey): Promise<boolean> {
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

  async close(): Promise<void> {
    try {
      await this.#client.close();
    } catch {
      this.#client.destroy();
    }
  }
}
