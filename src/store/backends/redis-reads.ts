import { assertIdPart, STASH_DIR, type StoreKey } from '../ids.js';
import type { ByteRange, EntryInfo, Store } from '../store.js';
import { checkKey, redisFailure } from './redis-common.js';

/** Entries whose size a listing asks for at once. */
const LIST_BATCH = 1000;

/** The reading commands both Redis stores use (a node-redis client or cluster has them all). */
export interface RedisReads {
  exists(key: string): Promise<number>;
  strLen(key: string): Promise<number>;
  zScore(key: string, member: string): Promise<number | null>;
  zRangeWithScores(key: string, min: number, max: number): Promise<{ value: string; score: number }[]>;
  hGetAll(key: string): Promise<Record<string, string>>;
}

/** The same client answering bulk strings as Buffers (bodies are bytes, not text). */
export interface RedisBufferReads {
  getRange(key: string, start: number, end: number): Promise<Buffer>;
  get(key: string): Promise<Buffer | null>;
}

/** Where a store keeps what a read needs to find. */
export interface RedisReadKeys {
  /** The key of a body. */
  body(dir: string, name: string): string;
  /** The ZSET of a directory's names, scored by last write. */
  names(dir: string): string;
  /** HASH dir -> bytes held. */
  use: string;
  /** ZSET session dir -> last write. */
  dirs: string;
  /** HASH stash id -> bytes: a stash listing reads sizes here, not from each of its bodies. */
  stashSizes: string;
}

/**
 * Reads bodies, entries and listings the same way from one Redis or a cluster; callers have
 * validated ids.
 *
 * @example
 * const reads = new RedisReader(client, buffers, keys);
 * await reads.get({ dir: 'sess', name: 'c1' });
 */
export class RedisReader {
  constructor(
    private readonly client: RedisReads,
    private readonly buffers: RedisBufferReads,
    private readonly keys: RedisReadKeys,
  ) {}

  async get(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    checkKey(key);
    const k = this.keys.body(key.dir, key.name);
    try {
      if (!range) return (await this.buffers.get(k)) ?? null;
      if (!(await this.client.exists(k))) return null;
      const start = Math.max(0, range.start);
      const end = Math.max(start, range.end);
      if (end === start) return Buffer.alloc(0);
      return Buffer.from(await this.buffers.getRange(k, start, end - 1));
    } catch (err) {
      throw redisFailure('get', err);
    }
  }

  async stat({ dir, name }: StoreKey): Promise<EntryInfo | null> {
    checkKey({ dir, name });
    const k = this.keys.body(dir, name);
    try {
      if (!(await this.client.exists(k))) return null;
      const [bytes, mtime] = await Promise.all([
        this.client.strLen(k),
        this.client.zScore(this.keys.names(dir), name),
      ]);
      return { name, bytes, mtimeMs: mtime ?? 0 };
    } catch (err) {
      throw redisFailure('stat', err);
    }
  }

  /** See {@link Store.usedBytes}. */
  usedBytes(): Promise<number> {
    return usedBytes(this.client, this.keys.use);
  }

  async list(dir?: string): Promise<EntryInfo[]> {
    try {
      if (dir === undefined) {
        const [use, dirs, newest] = await Promise.all([
          this.client.hGetAll(this.keys.use),
          this.client.zRangeWithScores(this.keys.dirs, 0, -1),
          this.client.zRangeWithScores(this.keys.names(STASH_DIR), -1, -1),
        ]);
        const out = dirs.map((d) => ({ name: d.value, bytes: Number(use[d.value] ?? 0), mtimeMs: d.score }));
        if (newest[0])
          out.push({ name: STASH_DIR, bytes: Number(use[STASH_DIR] ?? 0), mtimeMs: newest[0].score });
        return byName(out);
      }
      if (dir === STASH_DIR) {
        const [names, sizes] = await Promise.all([
          this.client.zRangeWithScores(this.keys.names(dir), 0, -1),
          this.client.hGetAll(this.keys.stashSizes),
        ]);
        const out: EntryInfo[] = [];
        for (const n of names) {
          const bytes = sizes[n.value];
          if (bytes !== undefined) out.push({ name: n.value, bytes: Number(bytes), mtimeMs: n.score });
        }
        return byName(out);
      }
      assertIdPart('directory', dir);
      const names = await this.client.zRangeWithScores(this.keys.names(dir), 0, -1);
      // Asked a thousand at a time, so the client pipelines them: a round trip per thousand
      // entries, not two per entry.
      const out: EntryInfo[] = [];
      for (let at = 0; at < names.length; at += LIST_BATCH) {
        const batch = await Promise.all(
          names.slice(at, at + LIST_BATCH).map(async (n) => {
            const k = this.keys.body(dir, n.value);
            const [exists, bytes] = await Promise.all([this.client.exists(k), this.client.strLen(k)]);
            return exists ? { name: n.value, bytes, mtimeMs: n.score } : undefined;
          }),
        );
        for (const e of batch) if (e) out.push(e);
      }
      return byName(out);
    } catch (err) {
      throw redisFailure('list', err);
    }
  }
}

/** The sum of a store's usage hash: the bytes it holds (the total its quota is checked against). */
async function usedBytes(client: RedisReads, use: string): Promise<number> {
  try {
    return Object.values(await client.hGetAll(use)).reduce((sum, v) => sum + Number(v), 0);
  } catch (err) {
    throw redisFailure('usage', err);
  }
}

function byName(entries: EntryInfo[]): EntryInfo[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The reading half both Redis backends share: each sets `reads` to its own key layout.
 *
 * @example
 * class MyRedisBytes extends RedisReadingBytes { protected readonly reads = new RedisReader(...); }
 */
export abstract class RedisReadingBytes {
  protected abstract readonly reads: RedisReader;

  read(key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
    return this.reads.get(key, range);
  }

  stat(key: StoreKey): Promise<EntryInfo | null> {
    return this.reads.stat(key);
  }

  list(dir?: string): Promise<EntryInfo[]> {
    return this.reads.list(dir);
  }

  /** The bytes the store holds, against `limits.maxTotalBytes` (the dashboard shows it). */
  usedBytes(): Promise<number> {
    return this.reads.usedBytes();
  }
}
