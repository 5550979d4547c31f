import type { DeclineReason, RevertCause, StageName } from './types.js';

/** Counters of one stage over one run (or summed over many). */
export interface StageStats {
  runs: number;
  acted: number;
  declined: Partial<Record<DeclineReason, number>>;
  reverted: Partial<Record<RevertCause, number>>;
  /** How it acted, where a stage says (collapse: `line_window`, `char_window`, `json_window`, `diff_window`, ...). */
  events: Partial<Record<string, number>>;
  tokensBefore: number;
  tokensAfter: number;
}

/**
 * Fresh, zeroed counters.
 *
 * @example
 * const s = emptyStats();
 * s.runs++;
 */
export function emptyStats(): StageStats {
  return {
    runs: 0,
    acted: 0,
    declined: {},
    reverted: {},
    events: {},
    tokensBefore: 0,
    tokensAfter: 0,
  };
}

/**
 * Adds one to a counter of a map of counters.
 *
 * @example
 * bump(stats.declined, 'below_max_tokens');
 */
export function bump<K extends string>(map: Partial<Record<K, number>>, key: K, by = 1): void {
  map[key] = (map[key] ?? 0) + by;
}

/**
 * Adds the counters of `b` into `a` (for totals over many runs).
 *
 * @example
 * const totals = {};
 * for (const run of runs) addStats(totals, run.stats);
 */
export function addStats(
  a: Partial<Record<StageName, StageStats>>,
  b: Partial<Record<StageName, StageStats>>,
): void {
  for (const [name, sb] of Object.entries(b) as [StageName, StageStats][]) {
    a[name] ??= emptyStats();
    const sa = a[name] as StageStats;
    sa.runs += sb.runs;
    sa.acted += sb.acted;
    sa.tokensBefore += sb.tokensBefore;
    sa.tokensAfter += sb.tokensAfter;
    for (const [k, v] of Object.entries(sb.declined)) bump(sa.declined, k as DeclineReason, v ?? 0);
    for (const [k, v] of Object.entries(sb.reverted)) bump(sa.reverted, k as RevertCause, v ?? 0);
    for (const [k, v] of Object.entries(sb.events ?? {})) bump(sa.events, k, v ?? 0);
  }
}
