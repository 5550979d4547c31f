/**
 * Structured content (`structuredContent` of a tool result) kept in its shape while it is made to
 * fit a budget: its long strings collapsed, its long arrays sampled.
 */
import { getTokenizer } from '../text/tokenizers/index.js';

const o200k = getTokenizer('o200k');
/** Whether a value's JSON fits `budget` tokens. */
export const fitsJson = (value: unknown, budget: number) => {
  const json = JSON.stringify(value);
  return json.length <= budget || o200k.countUpTo(json, budget) <= budget;
};

/** `value` with every array longer than `keep` + 1 cut to its first `keep` items and its last. */
function sampleArrays(value: unknown, keep: number, depth = 0): unknown {
  if (depth >= 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const kept = value.length > keep + 1 ? [...value.slice(0, keep), value.at(-1)] : value;
    return kept.map((v) => sampleArrays(v, keep, depth + 1));
  }
  // fromEntries makes own properties: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sampleArrays(v, keep, depth + 1)]));
}

/** `value` with its arrays sampled to the most items that fit the budget (at least one and the last). */
export function sampledToFit(value: unknown, budget: number): unknown {
  let lo = 1;
  let hi = 1024;
  let best = sampleArrays(value, 1);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const sampled = sampleArrays(value, mid);
    if (fitsJson(sampled, budget)) {
      best = sampled;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * `value` with every string longer in characters than the budget in tokens passed through
 * `collapse`, which measures it (a shorter one would need over a token a character to be over).
 */
export async function collapseStrings(
  value: unknown,
  collapse: (s: string) => Promise<string>,
  budget: number,
  depth = 0,
): Promise<unknown> {
  if (typeof value === 'string') return value.length > budget ? collapse(value) : value;
  if (depth >= 16 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) out.push(await collapseStrings(v, collapse, budget, depth + 1));
    return out;
  }
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value))
    entries.push([k, await collapseStrings(v, collapse, budget, depth + 1)]);
  return Object.fromEntries(entries);
}
