import { z } from 'zod';
import type { InputUsage } from './usage.js';

/** What a model's input costs, in USD per million tokens. */
export const ModelPriceSchema = z.strictObject({
  /** Input at the base price (not from the cache). */
  input: z.number().nonnegative(),
  /** Input read from the prompt cache. */
  cacheRead: z.number().nonnegative(),
  /** Input written to the prompt cache (Anthropic's 5-minute writes; the others bill none apart: the base price). */
  cacheWrite: z.number().nonnegative(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * The config's `prices`: model name prefixes to prices, over the built-in table (the longest
 * matching prefix wins).
 *
 * @example
 * PricesSchema.parse({ 'claude-sonnet-4-5': { input: 3, cacheRead: 0.3, cacheWrite: 3.75 } });
 */
export const PricesSchema = z.record(z.string().min(1), ModelPriceSchema);
export type Prices = z.infer<typeof PricesSchema>;

/** When the built-in table was last checked against the providers' pricing pages. */
export const PRICES_AS_OF = '2026-12-02';

/**
 * A price whose cache reads cost `cacheRead` and whose cache writes cost nothing apart (OpenAI,
 * Gemini: written at the base price).
 *
 * @example
 * cachedAt(1.25, 0.125); // { input: 1.25, cacheRead: 0.125, cacheWrite: 1.25 }
 */
export const cachedAt = (input: number, cacheRead: number): ModelPrice => ({
  input,
  cacheRead,
  cacheWrite: input,
});

/**
 * The price of a model (its name as the request gives it; a provider's `models/` prefix and a
 * date suffix do not matter) in the first of `tables` that knows it, by its longest matching
 * prefix; undefined for a model none knows.
 *
 * @example
 * priceIn([{ 'my-model': cachedAt(1, 0.1) }], 'my-model-2')?.matched; // 'my-model'
 */
export function priceIn(
  tables: readonly Readonly<Prices>[],
  model: string | undefined,
): { price: ModelPrice; matched: string } | undefined {
  if (!model) return undefined;
  const name = model.replace(/^models\//, '').toLowerCase();
  for (const table of tables) {
    let best: string | undefined;
    for (const prefix of Object.keys(table))
      if (name.startsWith(prefix.toLowerCase()) && (best === undefined || prefix.length > best.length))
        best = prefix;
    const price = best === undefined ? undefined : table[best];
    if (best !== undefined && price) return { price, matched: best };
  }
  return undefined;
}

/**
 * What a usage costs at a price, in USD.
 *
 * @example
 * costOf({ input: 1000, cacheRead: 1_000_000, cacheWrite: 0 }, { input: 3, cacheRead: 0.3, cacheWrite: 3.75 }); // 0.303
 */
export function costOf(usage: InputUsage, price: ModelPrice): number {
  return (
    (usage.input * price.input + usage.cacheRead * price.cacheRead + usage.cacheWrite * price.cacheWrite) /
    1e6
  );
}
