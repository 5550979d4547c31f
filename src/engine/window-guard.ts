/**
 * The window guard's plan: which tool results to mask and which to collapse harder so the whole
 * request fits the model's window. Pure: the engine carries the plan out (stash, freeze).
 */

/** One tool result as the guard weighs it. */
export interface GuardCandidate {
  /** Index into the turn's results. */
  index: number;
  /** Its tokens as it would go out now (raw count, before calibration). */
  tokens: number;
  /** In the protected recent results: collapsed only as a last resort, never masked. */
  recent: boolean;
  /** False for results the guard must leave alone (exempt, already a marker, not text). */
  movable: boolean;
  /** Text that collapse can shorten (false: it can only be masked). */
  collapsible: boolean;
}

/** An old tool call whose large arguments the guard may clear, and the tokens that saves. */
export interface InputCandidate {
  /** Index into the turn's calls. */
  index: number;
  saved: number;
}

export interface GuardLimits {
  /** Raw tokens of everything in the request but its tool results. */
  otherTokens: number;
  /** The most the calibrated request may hold: window - output tokens - margin. */
  limit: number;
  /** Calibration factor: calibrated = raw x ratio. */
  ratio: number;
  /** What a mask placeholder costs, raw. */
  maskTokens: number;
}

export interface GuardPlan {
  /** Calibrated estimate before and (as planned) after. */
  before: number;
  after: number;
  fits: boolean;
  mask: number[];
  /** Calls whose large arguments are cleared (by index into the calls). */
  clear: number[];
  collapse: { index: number; budget: number }[];
}

/**
 * Once over, the guard frees room down to this share of the limit, not just under it: the next
 * turns then fit as they are, so the cached prefix moves once in a while, not on every turn.
 */
export const GUARD_TARGET = 0.75;

/** Collapse never goes below this budget: under it a result is better masked. */
export const MIN_COLLAPSE_BUDGET = 256;

/**
 * The most raw tokens the guard counts of any one piece of a request (a message, a tool
 * result): a piece past it is over the window on its own, and how far past changes nothing the
 * guard can do (mask it, collapse it to a quarter of the window, or not fit). Every count the
 * guard makes is capped the same way, `min(exact, cap + 1)`, so a 10 MB result costs counting
 * one window of it, not seconds of counting all of it. (At least 1,024: a window with no room
 * left still gets counts that say how far over it is.)
 *
 * @example
 * windowCap(180_000, 1.2); // 150000
 */
export function windowCap(limit: number, ratio: number): number {
  return Math.max(1024, Math.ceil(limit / ratio));
}

/**
 * A count for the guard: exact up to `cap`, else `cap + 1` (see {@link windowCap}).
 *
 * @example
 * cappedCount(getTokenizer('o200k').countUpTo, hugeLog, 150_000); // 150001, after reading about 150,000 tokens of it
 */
export function cappedCount(
  countUpTo: (text: string, limit: number) => number,
  text: string,
  cap: number,
): number {
  return Math.min(countUpTo(text, cap), cap + 1);
}

/**
 * Masks the oldest results outside the protected recent ones first, then clears the large
 * arguments of the oldest calls outside the protected recent ones (`inputs`, oldest first), then
 * collapses the largest remaining results to a quarter of their size (recent results last), until the calibrated total
 * is within {@link GUARD_TARGET} of the limit (or as near as the results allow; it fits when it
 * is within the limit itself). `fits` false means even all of that is not enough: the caller then sends
 * the request unchanged and lets the provider's own error speak.
 *
 * @example
 * planWindowGuard(candidates, { otherTokens: 5000, limit: 180_000, ratio: 1.1, maskTokens: 40 });
 */
export function planWindowGuard(
  candidates: readonly GuardCandidate[],
  limits: GuardLimits,
  inputs: Iterable<InputCandidate> = [],
): GuardPlan {
  const calibrate = (raw: number) => Math.ceil(raw * limits.ratio);
  let raw = limits.otherTokens + candidates.reduce((n, c) => n + c.tokens, 0);
  const before = calibrate(raw);
  const plan: GuardPlan = {
    before,
    after: before,
    fits: before <= limits.limit,
    mask: [],
    clear: [],
    collapse: [],
  };
  if (plan.fits) return plan;
  const goal = Math.floor(limits.limit * GUARD_TARGET);
  const masked = new Set<number>();
  // Oldest first: the turns the model is least likely to need again.
  for (const c of candidates) {
    if (calibrate(raw) <= goal) break;
    if (!c.movable || c.recent || c.tokens <= limits.maskTokens) continue;
    plan.mask.push(c.index);
    masked.add(c.index);
    raw -= c.tokens - limits.maskTokens;
  }
  // Taken one at a time (each is planned as it is asked for), and no more once it is enough.
  if (calibrate(raw) > goal)
    for (const input of inputs) {
      if (input.saved <= 0) continue;
      plan.clear.push(input.index);
      raw -= input.saved;
      if (calibrate(raw) <= goal) break;
    }
  const rest = candidates
    .filter((c) => c.movable && c.collapsible && !masked.has(c.index))
    .sort((a, b) => Number(a.recent) - Number(b.recent) || b.tokens - a.tokens);
  for (const c of rest) {
    if (calibrate(raw) <= goal) break;
    const budget = Math.max(MIN_COLLAPSE_BUDGET, Math.floor(c.tokens / 4));
    if (budget >= c.tokens) continue;
    plan.collapse.push({ index: c.index, budget });
    raw -= c.tokens - budget;
  }
  plan.after = calibrate(raw);
  plan.fits = plan.after <= limits.limit;
  return plan;
}
