import { costOf, type ModelPrice, type Prices, priceOf, totalInput } from '../formats/index.js';
import type { ConversationReplay } from './replay-conversation.js';

/** The prompt-caching price model the cost estimate uses, stated in every report. */
export const PRICE_MODEL = {
  cacheRead: 0.1,
  cacheWrite: 1.25,
  description:
    'input tokens priced in units of the base input price: the previous request of a conversation is read from the cache at 0.1x, new (or rewritten) tokens are written at 1.25x; tool-result tokens only',
} as const;

/**
 * A conversation's input, in tokens and USD, without and with spillway, every denominator
 * named: where the transcript records what the provider billed a request (it ran without
 * spillway), that is its cost without, and with spillway is estimated from it less the saved
 * tokens (cache reads in the prefix, writes when new) plus the prefix rewrites; elsewhere both
 * are estimated from the request's tokens (tool results and the text the transcript records),
 * the previous request read from the cache and the rest written.
 */
export interface ReplayCost {
  /** Requests whose billed input the transcript records, and those estimated. */
  reportedTurns: number;
  estimatedTurns: number;
  /** Requests whose model has no price: their tokens count, their cost does not. */
  unpricedTurns: number;
  /** The provider's input tokens of the recorded requests (without spillway). */
  inputReported: number;
  /** Input tokens of every request (tool results and recorded text), estimated: without and with spillway. */
  inputBefore: number;
  inputAfter: number;
  /** USD without spillway (recorded where recorded) and with it (estimated). */
  usdWithout: number;
  usdWith: number;
  /** USD of the extra cache writes of prefix rewrites made on purpose (in usdWith). */
  usdRewrites: number;
}

/** A cost with nothing counted. */
export function emptyReplayCost(): ReplayCost {
  return {
    reportedTurns: 0,
    estimatedTurns: 0,
    unpricedTurns: 0,
    inputReported: 0,
    inputBefore: 0,
    inputAfter: 0,
    usdWithout: 0,
    usdWith: 0,
    usdRewrites: 0,
  };
}

/**
 * The cost of one replayed conversation at its model's price (`prices` over the built-in table).
 *
 * @example
 * const cost = replayCost(replay, config.prices);
 * cost.usdWithout - cost.usdWith; // saved, in USD
 */
export function replayCost(r: ConversationReplay, prices?: Readonly<Prices>): ReplayCost {
  const cost = emptyReplayCost();
  const price = priceOf(r.model, prices)?.price;
  let cachedBefore = 0;
  let cachedAfter = 0;
  r.perTurn.forEach((turn, i) => {
    const before = turn.before + turn.other;
    const after = sent(turn);
    cost.inputBefore += before;
    cost.inputAfter += after;
    // What a rewritten prefix writes again instead of reading: from the first rewritten turn on.
    const kept = turn.rewriteFrom ? sent(r.perTurn[turn.rewriteFrom - 1]) : 0;
    const rewritten = turn.prefixRewritten ? Math.max(0, Math.min(cachedAfter, after) - kept) : 0;
    const usage = r.providerUsage?.[i];
    if (usage) {
      cost.reportedTurns++;
      cost.inputReported += totalInput(usage);
    } else cost.estimatedTurns++;
    if (price) {
      // Recorded usage says what the original read from the cache: only that much of a
      // rewritten prefix costs a write instead of a read (a cold cache was written anyway).
      const rewrites = usd(
        usage ? Math.min(rewritten, usage.cacheRead) : rewritten,
        price.cacheWrite - price.cacheRead,
      );
      cost.usdRewrites += rewrites;
      if (usage) {
        const without = costOf(usage, price);
        // Cleared tool-call arguments were in the prefix too.
        const inPrefix = turn.savedInPrefix + (turn.otherSaved ?? 0);
        const saved = usd(inPrefix, price.cacheRead) + usd(turn.savedNew, price.cacheWrite);
        cost.usdWithout += without;
        cost.usdWith += Math.max(0, without - saved) + rewrites;
      } else {
        cost.usdWithout += cached(price, cachedBefore, before);
        cost.usdWith += cached(
          price,
          turn.prefixRewritten ? Math.min(kept, cachedAfter) : cachedAfter,
          after,
        );
      }
    } else cost.unpricedTurns++;
    cachedBefore = before;
    cachedAfter = after;
  });
  return cost;
}

const usd = (tokens: number, perMillion: number) => (tokens * perMillion) / 1e6;

/** What a request sent, as replayed: its tool results after spillway and its other text (less cleared call arguments). */
const sent = (turn: { after: number; other: number; otherSaved?: number } | undefined) =>
  turn ? turn.after + turn.other - (turn.otherSaved ?? 0) : 0;

/** A request of `tokens` whose first `reusable` were cached: read those, write the rest. */
function cached(price: ModelPrice, reusable: number, tokens: number): number {
  const read = Math.min(reusable, tokens);
  return usd(read, price.cacheRead) + usd(tokens - read, price.cacheWrite);
}

/**
 * What the prefix rewrites cost: each rewritten request writes again, at the write price, the
 * part it could have read from the cache.
 *
 * @example
 * rewriteCost([{ before: 100, after: 100, prefixRewritten: false }, { before: 150, after: 120, prefixRewritten: true }]); // 100 x (1.25 - 0.1)
 */
export function rewriteCost(perTurn: readonly { after: number; prefixRewritten: boolean }[]): number {
  let cost = 0;
  for (let i = 1; i < perTurn.length; i++) {
    const turn = perTurn[i] as { after: number; prefixRewritten: boolean };
    if (!turn.prefixRewritten) continue;
    const cached = Math.min((perTurn[i - 1] as { after: number }).after, turn.after);
    cost += cached * (PRICE_MODEL.cacheWrite - PRICE_MODEL.cacheRead);
  }
  return cost;
}

/**
 * Input cost of a conversation's requests under the caching price model: each request reads
 * the previous one from the cache and writes what is new; a request whose cached prefix was
 * rewritten (mask) is written whole.
 *
 * @example
 * requestCost([{ before: 100, after: 100, prefixRewritten: false }, { before: 150, after: 120, prefixRewritten: false }], 'before');
 * // 100 * 1.25 + 100 * 0.1 + 50 * 1.25 = 197.5
 */
export function requestCost(perTurn: ConversationReplay['perTurn'], side: 'before' | 'after'): number {
  let cost = 0;
  let cached = 0;
  for (const turn of perTurn) {
    const tokens = turn[side];
    const reusable = side === 'after' && turn.prefixRewritten ? 0 : Math.min(cached, tokens);
    cost += reusable * PRICE_MODEL.cacheRead + (tokens - reusable) * PRICE_MODEL.cacheWrite;
    cached = tokens;
  }
  return cost;
}
