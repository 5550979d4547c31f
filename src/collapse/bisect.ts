/**
 * The largest n from `good` up to (not including) `bad` for which `fits` holds, by bisection.
 * `good` is taken to fit (it is the answer when nothing above it does) and `bad` not to; `fits`
 * must hold up to some n and not past it. Every window collapse fits to a budget ends here.
 *
 * @example
 * largestFitting(0, 101, (n) => n * n <= 50); // 7
 */
export function largestFitting(good: number, bad: number, fits: (n: number) => boolean): number {
  let lo = good;
  let hi = bad;
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
