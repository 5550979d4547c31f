import { SpillwayError } from '../../errors.js';
import type { ByteStore, WriteOutcome } from '../byte-store.js';
import { assertIdPart, type StoreKey } from '../ids.js';
import { ACTIVE_AGE_MS } from '../quota.js';
import { QuotaStore } from '../quota-store.js';
import { DEFAULT_LIMITS, type StoreLimits } from '../store.js';
import { DAY_MS } from './retention.js';

/** What both Redis stores take: one server or a cluster. */
export interface RedisStoreOptions extends Partial<StoreLimits> {
  /** Key prefix, so several deployments can share one Redis (default "spillway"). */
  prefix?: string;
  /** Stash entries and idle sessions expire after this (default 30 days, as the file store). */
  keepAgeMs?: number;
  /** Sessions that wrote within this are never removed to make room (default 15 minutes). */
  activeAgeMs?: number;
  /** How long a first connection may take before the store gives up (default 3 s). */
  connectTimeoutMs?: number;
  /** How long one command may take before it fails (default 10 s): nothing hangs on a lost node. */
  deadlineMs?: number;
}

/** The settings a Redis store runs with, defaults filled in and the prefix checked. */
export interface RedisSettings {
  limits: Readonly<StoreLimits>;
  prefix: string;
  keepAgeMs: number;
  activeAgeMs: number;
}

/**
 * Fills in a Redis store's defaults; throws `SPILLWAY_BAD_CONFIG` on a prefix that could not be
 * a key part.
 *
 * @example
 * redisSettings({ prefix: 'team-a' }).keepAgeMs; // 2592000000 (30 days)
 */
export function redisSettings(options: RedisStoreOptions): RedisSettings {
  const prefix = options.prefix ?? 'spillway';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(prefix))
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `invalid Redis key prefix "${prefix}": use 1-64 of A-Z a-z 0-9 _ . -`,
    );
  return {
    limits: Object.freeze({
      maxFileBytes: options.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      maxSessionBytes: options.maxSessionBytes ?? DEFAULT_LIMITS.maxSessionBytes,
      maxTotalBytes: options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes,
    }),
    prefix,
    keepAgeMs: options.keepAgeMs ?? 30 * DAY_MS,
    activeAgeMs: options.activeAgeMs ?? ACTIVE_AGE_MS,
  };
}

/**
 * Throws when both parts of a key are not valid ids (before either becomes part of a key).
 *
 * @example
 * checkKey({ dir: 'sess', name: 'call_1' });
 */
export function checkKey(key: StoreKey): void {
  assertIdPart('directory', key.dir);
  assertIdPart('entry', key.name);
}

/**
 * A write script's reply as a {@link WriteOutcome}: {1, stored}; {0} the entry exists; {-3,
 * length} an append past the entry's limit; {-1, held} over the session quota; {-2, total,
 * need} over the store's total.
 *
 * @example
 * outcomeOf([-2, 1000, 40]); // { ok: false, reason: 'total', held: 1000, need: 40 }
 */
export function outcomeOf([status = 0, held = 0, need = 0]: number[]): WriteOutcome {
  if (status === 1) return { ok: true, stored: held };
  if (status === 0) return { ok: false, reason: 'exists' };
  if (status === -3) return { ok: false, reason: 'entry', held };
  if (status === -1) return { ok: false, reason: 'session', held };
  if (status === -2) return { ok: false, reason: 'total', held, need };
  throw new SpillwayError('SPILLWAY_IO', `a Redis write script answered an unknown status ${status}`);
}

/**
 * A Redis failure as a `SPILLWAY_IO` error naming the operation; spillway's own errors pass.
 *
 * @example
 * catch (err) { throw redisFailure('put', err); }
 */
export function redisFailure(what: string, err: unknown): SpillwayError {
  if (SpillwayError.isInstance(err)) return err;
  return new SpillwayError('SPILLWAY_IO', `Redis ${what} failed: ${(err as Error).message}`, { cause: err });
}

/** What {@link connectOrExplain} needs of a node-redis client or cluster. */
export interface Connectable {
  connect(): Promise<unknown>;
  destroy?(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Makes a client with `make` (handing it the reconnect strategy: before the first connection,
 * give up, a clear error at start; after it, retry with backoff for as long as it takes, so a
 * restarted Redis is picked up without a restart) and connects it, or throws `SPILLWAY_IO`
 * naming `where` (redacted) and what to check.
 *
 * @example
 * const client = await connectOrExplain(
 *   (reconnectStrategy) => createClient({ url, socket: { reconnectStrategy } }),
 *   'Redis at redis://127.0.0.1:6379', 'is redis-server running there?',
 * );
 */
export async function connectOrExplain<C extends Connectable>(
  make: (reconnectStrategy: (retries: number, cause: Error) => number | Error) => C,
  where: string,
  check: string,
): Promise<C> {
  let connected = false;
  let lastError: Error | undefined;
  const client = make((retries, cause) => (connected ? Math.min(50 * 2 ** retries, 2000) : cause));
  client.on('error', (err) => {
    lastError = err;
  });
  try {
    await client.connect();
  } catch (err) {
    client.destroy?.();
    const why = (err as Error).message || lastError?.message || String(err);
    throw new SpillwayError('SPILLWAY_IO', `cannot connect to ${where}: ${why}; ${check}`, { cause: err });
  }
  connected = true;
  return client;
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

/**
 * What both Redis stores are: the quotas above their backend, and the URL they reached
 * (redacted).
 *
 * @example
 * class MyRedisStore extends RedisQuotaStore {}
 */
export abstract class RedisQuotaStore extends QuotaStore {
  readonly url: string;

  protected constructor(url: string, bytes: ByteStore, settings: RedisSettings) {
    super(bytes, { limits: settings.limits, activeAgeMs: settings.activeAgeMs });
    this.url = url;
  }
}
