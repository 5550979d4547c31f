import { type ModelPrice, type Prices, priceOf } from '../formats/index.js';

/**
 * A result (or a call's arguments) smaller than this saves too little to rewrite history for:
 * it is never masked or cleared, whatever the conversation.
 */
export const MIN_REWRITE_SAVING = 256;

/**
 * What rewriting one request's cached prefix costs and earns, for one conversation. Masking an
 * old result makes every token after it in the provider's cache a write instead of a read on
 * this request; it earns the tokens it takes out, read no more on this request and on every
 * request still to come.
 */
export interface PrefixEconomics {
  /** Cache read and write prices, in any one unit (USD per million tokens). */
  read: number;
  write: number;
  /** Requests expected after this one. */
  remaining: number;
  /** Nothing is cached (first request, or past the cache's lifetime): a rewrite costs nothing. */
  cold: boolean;
  /** Tokens the provider holds cached from message `position` on (what a rewrite there writes again). */
  tokensFrom(position: number): number;
  /**
   * What spillway has saved this conversation so far (tokens x price, less the rewrites it
   * paid for): a rewrite is made only when its cost, were the conversation to end right after
   * it, is covered, so no conversation costs more than it would have without spillway.
   */
  banked(): number;
  /** Takes a rewrite's extra cache writes (tokens x price) off what is banked. */
  spend(cost: number): void;
}

// Unknown models are priced like Anthropic's: the dearest cache write against its read, so a
// rewrite has to pay the most before it is made.
const UNKNOWN_PRICE = { cacheRead: 0.1, cacheWrite: 1.25 };

/**
 * The cache prices of a model (its name as the request gives it), from the config's prices
 * and the built-in table; Anthropic's ratio for a model neither knows.
 *
 * @example
 * cachePrices('gpt-4o'); // { read: 1.25, write: 2.5 }
 */
export function cachePrices(
  model: string | undefined,
  prices?: Readonly<Prices>,
): { read: number; write: number } {
  const price: Pick<ModelPrice, 'cacheRead' | 'cacheWrite'> = priceOf(model, prices)?.price ?? UNKNOWN_PRICE;
  return { read: price.cacheRead, write: price.cacheWrite };
}

/**
 * How many more requests a conversation is expected to make, counted low: a third of those it
 * has made (the distinct messages that hold tool results). Under the Copernican estimate a
 * conversation that reached a length goes on at least a third as long again 3 times in 4.
 *
 * @example
 * expectedRemaining([{ position: 2 }, { position: 2 }, { position: 4 }, { position: 6 }]); // 1
 */
export function expectedRemaining(results: readonly { position: number }[]): number {
  return new Set(results.map((r) => r.position)).size / 3;
}

/** One thing a rewrite could take out of the prefix. */
export interface RewriteCandidate<T> {
  item: T;
  /** The message it is in. */
  position: number;
  /** Tokens it would take out (its tokens less its marker's). */
  saving: number;
  /** An error output: kept while a larger result that is not one stays. */
  error?: boolean;
}

/** The extra cache writes of rewriting from `from`, taking out `saved` tokens. */
function writes(e: PrefixEconomics, from: number, saved: number): number {
  return e.cold ? 0 : Math.max(0, e.tokensFrom(from) - saved) * (e.write - e.read);
}

/** The expected net gain of a rewrite. */
function net(e: PrefixEconomics, from: number, saved: number): number {
  return saved * e.read * (1 + e.remaining) - writes(e, from, saved);
}

/**
 * The candidates worth taking out on this request: the set, among those that save at least
 * {@link MIN_REWRITE_SAVING} tokens, whose tokens saved over this request and the expected
 * remaining ones outweigh the cache writes of rewriting the prefix from its earliest one, with
 * the largest net gain, and whose cost should the conversation end now is covered by what is
 * banked (empty when none pays); its writes are spent. An error output is taken only when no
 * larger candidate that is not one stays.
 *
 * @example
 * const chosen = chooseRewrites(candidates, economics);
 * chosen.has(oldBuildLog); // true when masking it pays
 */
export function chooseRewrites<T>(candidates: readonly RewriteCandidate<T>[], e: PrefixEconomics): Set<T> {
  const worth = candidates
    .filter((c) => c.saving >= MIN_REWRITE_SAVING)
    .sort((a, b) => a.position - b.position);
  let best: { gain: number; from: number; largestLeft: number } | undefined;
  // The largest saving of a non-error candidate before `from`, for each possible start.
  let largestLeft = 0;
  for (let k = 0; k < worth.length; k++) {
    const from = (worth[k] as RewriteCandidate<T>).position;
    if (k > 0 && (worth[k - 1] as RewriteCandidate<T>).position === from) continue;
    let saved = 0;
    for (let j = k; j < worth.length; j++) {
      const c = worth[j] as RewriteCandidate<T>;
      if (!c.error || c.saving >= largestLeft) saved += c.saving;
    }
    const gain = net(e, from, saved);
    if (gain > 0 && (!best || gain > best.gain)) best = { gain, from, largestLeft };
    for (let j = k; j < worth.length && (worth[j] as RewriteCandidate<T>).position === from; j++) {
      const c = worth[j] as RewriteCandidate<T>;
      if (!c.error) largestLeft = Math.max(largestLeft, c.saving);
    }
  }
  const chosen = new Set<T>();
  if (!best) return chosen;
  const { from, largestLeft: left } = best;
  let saved = 0;
  for (const c of worth)
    if (c.position >= from && (!c.error || c.saving >= left)) {
      chosen.add(c.item);
      saved += c.saving;
    }
  // Were the conversation to end with this request, the rewrite would lose its writes less the
  // tokens it saves now: it is made only when what is banked covers that (else the batch waits
  // whole: a smaller set now would mean another rewrite later).
  const cost = writes(e, from, saved);
  if (cost - saved * e.read > e.banked()) return new Set();
  e.spend(cost);
  return chosen;
}

/**
 * What the engine knows of a request's cache economics before its stages run: everything of
 * {@link PrefixEconomics} but the tool results' tokens, which the stages count as they stand.
 */
export interface RequestEconomics extends Omit<PrefixEconomics, 'tokensFrom'> {
  /** The request's tokens other than tool results (messages, calls' arguments) from message `position` on. */
  otherTokensFrom(position: number): number;
  /** Messages below this are in the provider's cache. */
  cachedPrefix: number;
}

/**
 * The economics of rewriting the prefix of a request whose tool results (content as it stands,
 * so as cached for the prefix) are `items`: tokens from a message on are those of the results
 * and other text between it and the end of the cached prefix, counted when first asked.
 *
 * @example
 * chooseRewrites(candidates, prefixEconomics(ctx.economics, conversation, count));
 */
export function prefixEconomics(
  request: RequestEconomics,
  items: readonly { position: number; text: () => string }[],
  count: (text: string) => number,
): PrefixEconomics {
  const end = request.cachedPrefix;
  let cached: { position: number; tokens: number }[] | undefined;
  return {
    ...request,
    tokensFrom(position) {
      if (position >= end) return 0;
      cached ??= items
        .filter((i) => i.position < end)
        .map((i) => ({ position: i.position, tokens: count(i.text()) }));
      let tokens = request.otherTokensFrom(position) - request.otherTokensFrom(end);
      for (const c of cached) if (c.position >= position) tokens += c.tokens;
      return tokens;
    },
  };
}

/**
 * What spillway has saved one conversation, priced at its cache's prices, less the rewrites it
 * paid for: the cover a rewrite needs (see {@link PrefixEconomics.banked}). Kept by the
 * conversation's engine (a proxy that restarts, or another proxy of a fleet, starts from 0 and
 * so rewrites later, never sooner).
 *
 * @example
 * const bank = new SavingsBank();
 * bank.add([{ saved: 4000, inPrefix: false }], { read: 0.3, write: 3.75, cold: false });
 */
export class SavingsBank {
  #total = 0;

  get total(): number {
    return this.#total;
  }

  /** Adds one request's savings: tokens read from the cache at its read price, new ones at its write price. */
  add(
    saved: readonly { saved: number; inPrefix: boolean }[],
    price: { read: number; write: number; cold: boolean },
  ): void {
    for (const s of saved) this.#total += s.saved * (s.inPrefix && !price.cold ? price.read : price.write);
  }

  spend(cost: number): void {
    this.#total -= cost;
  }
}
