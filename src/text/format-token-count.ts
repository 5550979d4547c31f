const SUFFIXES = [
  { size: 1e9, suffix: 'B' },
  { size: 1e6, suffix: 'M' },
  { size: 1e3, suffix: 'K' },
] as const;

/**
 * A token count for people: `999`, `1.2K`, `3.4M`, `2.0B`.
 *
 * @example
 * formatTokenCount(1234); // '1.2K'
 * formatTokenCount(999_999); // '1.0M' (rounding never prints 1000.0K)
 */
export function formatTokenCount(tokens: number): string {
  if (!Number.isFinite(tokens)) return String(tokens);
  const sign = tokens < 0 ? '-' : '';
  const n = Math.abs(Math.round(tokens));
  if (n < 1000) return `${sign}${n}`;
  // Pick the smallest suffix whose one-decimal rendering stays under 1000.
  for (let i = SUFFIXES.length - 1; i >= 0; i--) {
    const { size, suffix } = SUFFIXES[i] as (typeof SUFFIXES)[number];
    const shown = (n / size).toFixed(1);
    if (Number(shown) < 1000 || i === 0) return `${sign}${shown}${suffix}`;
  }
  return `${sign}${n}`;
}
