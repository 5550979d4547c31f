// With --expose-gc (npm run bench passes it), garbage left by the previous sample is collected
// before each one, so a measurement does not pay for another's allocations.
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Median wall time of `fn` in milliseconds over `runs` runs, after one warm-up run. */
export function time(fn: () => unknown, runs = 5): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    collect();
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}x`;
}

export function ms(n: number): string {
  return `${n.toFixed(n < 10 ? 2 : 0)} ms`;
}

/** Median wall time of an async `fn(i)` in milliseconds over `runs` runs, after one warm-up (i = -1). */
export async function timeAsync(
  fn: (i: number) => Promise<unknown>,
  runs = 5,
  collectGarbage = true,
): Promise<number> {
  await fn(-1);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    // Sub-millisecond samples are better left alone: a forced collection costs more than they do.
    if (collectGarbage) collect();
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

/**
 * Runs every case once per round, in turn (A B C A B C ...), after one warm-up round, so a
 * machine whose speed drifts during the run slows all of them alike. Returns each case's
 * times in round order (ms), for {@link median} and {@link medianRatio}.
 */
export async function interleaved<K extends string>(
  cases: Record<K, (round: number) => unknown>,
  rounds = 5,
): Promise<Record<K, number[]>> {
  const names = Object.keys(cases) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = -1; round < rounds; round++) {
    for (const name of names) {
      collect();
      const t = performance.now();
      await cases[name](round);
      if (round >= 0) samples[name].push(performance.now() - t);
    }
  }
  return samples;
}

/** The median of some samples. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** p50, p90 and p99 of samples, in ms. */
export function percentiles(samples: readonly number[]): { p50: number; p90: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99) };
}

/** The median over rounds of `of(round) / to(round)`: the ratio each round measured, not a ratio of medians. */
export function medianRatio(of: readonly number[], to: readonly number[]): number {
  return median(of.map((x, i) => x / (to[i] as number)));
}
