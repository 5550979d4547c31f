import { SpillwayError } from '../errors.js';
import { NAMED_STASH_ID, STASH_DIR } from './ids.js';
import type { StoreLimits } from './store.js';

/*
 * The quota rules every backend keeps, written once: a session's directory may hold at most
 * maxSessionBytes (the stash is no session), the store at most maxTotalBytes, and over the total
 * the oldest stash entries go first, never one a frozen decision names nor the one being
 * written. The memory and file backends apply them here; the Redis backends apply the same
 * rules inside their Lua scripts (atomic across proxies) and report with these errors. The
 * store contract suite holds every backend to them.
 */

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
