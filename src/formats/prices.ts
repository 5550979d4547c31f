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

const anthropic = (input: number): ModelPrice => ({ input, cacheRead: input / 10, cacheWrite: input * 1.25 });
const cachedAt = (input: number, cacheRead: number): ModelPrice => ({ input, cacheRead, cacheWrite: input });

/**
 * The built-in table, by model name prefix (the longest match wins): Anthropic (cache reads
 * at 0.1x, 5-minute writes at 1.25x), OpenAI and Gemini (cached input at their discount, no
 * write price). Override or extend it with `prices` in the config; a model it does not know is
 * reported unpriced, its tokens still counted.
 */
export const PRICES: Readonly<Prices> = {
  'claude-opus': anthropic(5),
  'claude-opus-4-0': anthropic(15),
  'claude-opus-4-1': anthropic(15),
  'claude-opus-4-2025': anthropic(15),
  'claude-3-opus': anthropic(15),
  'claude-sonnet': anthropic(3),
  'claude-3-7-sonnet': anthropic(3),
  'claude-3-5-sonnet': anthropic(3),
  'claude-haiku': anthropic(1),
  'claude-3-5-haiku': anthropic(0.8),
  'claude-3-haiku': anthropic(0.25),
  'gpt-5': cachedAt(1.25, 0.125),
  'gpt-5-mini': cachedAt(0.25, 0.025),
  'gpt-5-nano': cachedAt(0.05, 0.005),
  'gpt-4.1': cachedAt(2, 0.5),
  'gpt-4.1-mini': cachedAt(0.4, 0.1),
  'gpt-4.1-nano': cachedAt(0.1, 0.025),
  'gpt-4o': cachedAt(2.5, 1.25),
  'gpt-4o-mini': cachedAt(0.15, 0.075),
  o3: cachedAt(2, 0.5),
  'o3-mini': cachedAt(1.1, 0.55),
  'o4-mini': cachedAt(1.1, 0.275),
  'gemini-3-pro': cachedAt(2, 0.2),
  'gemini-2.5-pro': cachedAt(1.25, 0.125),
  'gemini-2.5-flash': cachedAt(0.3, 0.03),
  'gemini-2.5-flash-lite': cachedAt(0.1, 0.01),
};

/**
 * The price of a model (its name as the request gives it; a provider's `models/` prefix and a
 * date suffix do not matter), from `overrides` first, then the built-in table; undefined for
 * a model neither knows.
 *
 * @example
 * priceOf('claude-sonnet-4-5-20250929')?.price.input; // 3
 * priceOf('my-model', { 'my-model': { input: 1, cacheRead: 0.1, cacheWrite: 1 } })?.matched; // 'my-model'
 */
export function priceOf(
  model: string | undefined,
  overrides?: Readonly<Prices>,
): { price: ModelPrice; matched: string } | undefined {
  if (!model) return undefined;
  const name = model.replace(/^models\//, '').toLowerCase();
  for (const table of [overrides ?? {}, PRICES]) {
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
