import { SpillwayError } from '../errors.js';
import type { WriteOutcome } from './byte-store.js';
import { NAMED_STASH_ID, STASH_DIR } from './ids.js';
import type { StoreLimits } from './store.js';

/*
 * The quota rules every backend keeps, written once: a session's directory may hold at most
 * maxSessionBytes (the stash is no session), the store at most maxTotalBytes, and over the total
 * the oldest idle sessions go first (never the one being written nor one active within
 * activeAgeMs), then the oldest stash entries, never one a live session's frozen decision names
 * nor the one being written. A backend checks the two quotas in its atomic write (refusal; Lua on Redis);
 * what goes when it is full is decided above every backend (room.ts, quota-store.ts) and by
 * file retention (backends/retention.ts). The store contract suite holds every backend to them.
 */

/**
 * A write that finds the store full makes room for itself and for this share of the total
 * more (32 MiB of the default 1 GiB), so a store at its total makes room once per many writes,
 * not on every one (each time costs a listing, and round trips on a shared store).
 */
export const ROOM_MARGIN_SHARE = 1 / 32;

/** A session is in use, and survives a store over its total, this long after its last write. */
export const ACTIVE_AGE_MS = 15 * 60 * 1000;

/** A session as the quota rules see it: its bytes and its newest write. */
export interface SessionUsage {
  name: string;
  bytes: number;
  newestMs: number;
}

/** Which session is being written, and the clock, for telling live sessions from idle ones. */
export interface Liveness {
  /** The session, or sessions, being written. */
  keep?: string | ReadonlySet<string> | undefined;
  now: number;
  activeAgeMs: number;
}

/**
 * True for the session being written and for one that wrote within `activeAgeMs`.
 *
 * @example
 * isLive({ name: 's', bytes: 1, newestMs: 0 }, { now: 60_000, activeAgeMs: ACTIVE_AGE_MS }); // true
 */
export function isLive(session: Omit<SessionUsage, 'bytes'>, o: Liveness): boolean {
  const kept = typeof o.keep === 'string' ? session.name === o.keep : (o.keep?.has(session.name) ?? false);
  return kept || o.now - session.newestMs < o.activeAgeMs;
}

/**
 * The sessions to remove to free `need` bytes: idle ones only, the longest idle first (by name
 * among equals), until enough is freed (or none is left).
 *
 * @example
 * idleEvictions(sessions, 1000, { keep: 'now', now: Date.now(), activeAgeMs: ACTIVE_AGE_MS });
 */
export function idleEvictions<S extends SessionUsage>(sessions: Iterable<S>, need: number, o: Liveness): S[] {
  const idle = [...sessions]
    .filter((s) => !isLive(s, o))
    .sort((a, b) => a.newestMs - b.newestMs || (a.name < b.name ? -1 : 1));
  const out: S[] = [];
  let freed = 0;
  for (const session of idle) {
    if (freed >= need) break;
    out.push(session);
    freed += session.bytes;
  }
  return out;
}

/**
 * True when `dir`, holding `holds` bytes, may grow by `growth` (the stash has no session quota).
 *
 * @example
 * sessionFits({ maxSessionBytes: 100 }, 'sess', 60, 60); // false
 */
export function sessionFits(
  limits: Pick<StoreLimits, 'maxSessionBytes'>,
  dir: string,
  holds: number,
  growth: number,
): boolean {
  return dir === STASH_DIR || holds + growth <= limits.maxSessionBytes;
}

/**
 * The refusal of growing directories by `growth` bytes against a ledger (`total`, and `held` for
 * a directory's bytes), or null when it fits: the two quota checks of every backend's guarded
 * write (the Redis scripts make the same in Lua).
 *
 * @example
 * refusal(limits, 900, () => 0, [['sess', 200]]); // { ok: false, reason: 'total', held: 900, need: 100 } at 1,000
 */
export function refusal(
  limits: Pick<StoreLimits, 'maxSessionBytes' | 'maxTotalBytes'>,
  total: number,
  held: (dir: string) => number,
  growth: readonly [dir: string, bytes: number][],
): WriteOutcome | null {
  let added = 0;
  for (const [dir, bytes] of growth) {
    added += bytes;
    const holds = held(dir);
    if (!sessionFits(limits, dir, holds, bytes)) return { ok: false, reason: 'session', held: holds, dir };
  }
  if (total + added <= limits.maxTotalBytes) return null;
  return { ok: false, reason: 'total', held: total, need: total + added - limits.maxTotalBytes };
}

/**
 * The error of a write that would take a session past its quota.
 *
 * @example
 * throw sessionQuotaError(store.limits, 'sess', 60);
 */
export function sessionQuotaError(
  limits: Pick<StoreLimits, 'maxSessionBytes'>,
  dir: string,
  holds: number,
): SpillwayError {
  return new SpillwayError(
    'SPILLWAY_QUOTA',
    `session "${dir}" would exceed its quota of ${limits.maxSessionBytes} bytes (it holds ${holds})`,
  );
}

/**
 * The error of a write that would take the whole store past its total, once room was made.
 *
 * @example
 * throw totalQuotaError(store.limits, 1000, 'the Redis store');
 */
export function totalQuotaError(
  limits: Pick<StoreLimits, 'maxTotalBytes'>,
  holds: number,
  what = 'the store',
  hint = '',
): SpillwayError {
  return new SpillwayError(
    'SPILLWAY_QUOTA',
    `${what} would exceed its total quota of ${limits.maxTotalBytes} bytes (it holds ${holds})${hint}`,
  );
}

/**
 * The stash ids frozen decisions name (their own, or in a marker): entries eviction spares,
 * since a session's next turn replays those markers and a marker must stay recallable.
 *
 * @example
 * stashIdsNamed(['{"stashId":"Ab3"}', 'x <<sw:Cd4>>']); // Set { 'Ab3', 'Cd4' }
 */
export function stashIdsNamed(frozenLogs: Iterable<string>): Set<string> {
  const named = new Set<string>();
  for (const body of frozenLogs)
    for (const m of body.matchAll(NAMED_STASH_ID)) named.add((m[1] ?? m[2]) as string);
  return named;
}

/**
 * The stash entries to evict to free `need` bytes: the oldest first (`oldestFirst` is in that
 * order), skipping those `spared` names, until enough is freed (or none is left).
 *
 * @example
 * evictions([{ name: 'a', bytes: 40 }, { name: 'b', bytes: 40 }], 50, new Set()); // [a, b]
 */
export function evictions<E extends { name: string; bytes: number }>(
  oldestFirst: Iterable<E>,
  need: number,
  spared: ReadonlySet<string>,
): E[] {
  const out: E[] = [];
  let freed = 0;
  for (const entry of oldestFirst) {
    if (freed >= need) break;
    if (spared.has(entry.name)) continue;
    out.push(entry);
    freed += entry.bytes;
  }
  return out;
}
