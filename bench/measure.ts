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
