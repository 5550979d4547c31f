import { addTokens, type RecentDecision, type RequestFigures } from '../../engine/index.js';
import { costOf, type InputUsage, type ModelPrice, PRICES_AS_OF, totalInput } from '../../providers/index.js';

/**
 * What spillway saved, with every denominator named: the answered requests of conversations,
 * their input tokens as the provider billed them (its own usage where the answer reported it,
 * estimated where not, and counted apart), and their cost at a price table's prices.
 */
export interface Savings {
  /** Answers to conversation requests: the denominator of every figure here. */
  answers: number;
  /** Of those, answers that reported their usage: their input is the provider's own count. */
  reported: number;
  /** Answers without usage: their input estimated from the bytes sent (4 a token), at the base price. */
  estimated: number;
  /** Input tokens of the answered requests as they were sent, by how they were billed. */
  input: InputUsage;
  /** Tool-result tokens (bytes/4) spillway took out of those requests: inside the cached prefix, and new. */
  savedInPrefix: number;
  savedNew: number;
  /** Input tokens of the same requests without spillway (estimated: as sent plus the saved). */
  inputWithoutSpillway: number;
  cost: SavingsCost;
  /** Tool-result tokens before and after by tool, summed over requests (each request sends them again). */
  byTool: Record<string, { before: number; after: number }>;
  /** The same by session, for the sessions seen last (at most 50). */
  /**
   * By session: tool-result tokens before and after, requests, requests that rewrote the cached
   * prefix, and the conversation's weighing of rewrites after its latest request (results
   * waiting because a rewrite would not pay yet, USD saved that a rewrite must be covered by).
   */
  bySession: Record<
    string,
    { before: number; after: number; requests: number; rewrites: number; waiting: number; bankedUsd: number }
  >;
  /** Per minute: tool-result tokens before and after, and the cost as sent and without spillway. */
  timeline: { minute: string; before: number; after: number; billed: number; withoutSpillway: number }[];
  /** The last results a stage changed, newest last (at most 30). */
  recent: RecentDecision[];
}

export interface SavingsCost {
  currency: 'USD';
  /** The date the built-in price table was last checked; `prices` in the config overrides it. */
  pricesAsOf: string;
  /** What the priced answers cost as they were sent. */
  billed: number;
  /**
   * What they would have cost without spillway: the saved tokens priced as cache reads where
   * in the prefix, as cache writes (or base input) where new. Estimated, unless in observe mode.
   */
  withoutSpillway: number;
  /** What they would have cost with spillway: estimated in observe mode (nothing was changed). */
  withSpillway: number;
  /** Which of the two is the estimate. */
  estimate: 'withoutSpillway' | 'withSpillway';
  saved: number;
  /**
   * Cache writes spent on purpose rewriting the prefix (mask, supersede, the guard's batches):
   * the tool-result tokens written again at the write price minus the read price. Estimated, at
   * least this much.
   */
  prefixRewrites: number;
  /** Answers whose model no price is known for: their tokens are counted, their cost is not. */
  unpriced: number;
}

const MAX_SESSIONS = 50;
const MAX_MINUTES = 180;
const MAX_RECENT = 30;

/**
 * Fresh, zeroed savings.
 *
 * @example
 * const savings = newSavings(false);
 */
export function newSavings(observeOnly: boolean): Savings {
  return {
    answers: 0,
    reported: 0,
    estimated: 0,
    input: { input: 0, cacheRead: 0, cacheWrite: 0 },
    savedInPrefix: 0,
    savedNew: 0,
    inputWithoutSpillway: 0,
    cost: {
      currency: 'USD',
      pricesAsOf: PRICES_AS_OF,
      billed: 0,
      withoutSpillway: 0,
      withSpillway: 0,
      estimate: observeOnly ? 'withSpillway' : 'withoutSpillway',
      saved: 0,
      prefixRewrites: 0,
      unpriced: 0,
    },
    byTool: Object.create(null),
    bySession: Object.create(null),
    timeline: [],
    recent: [],
  };
}

/**
 * Adds what one request's tool results came to (as it is rewritten, before its answer).
 *
 * @example
 * recordRequest(stats.savings, out.figures, out.session, new Date());
 */
export function recordRequest(savings: Savings, figures: RequestFigures, session: string, now: Date): void {
  let before = 0;
  let after = 0;
  for (const [tool, t] of Object.entries(figures.byTool)) {
    addTokens(savings.byTool, tool, t.before, t.after);
    before += t.before;
    after += t.after;
  }
  const s = savings.bySession[session] ?? { before: 0, after: 0, requests: 0, rewrites: 0 };
  // Re-inserted, so the least recently seen session is the first to go.
  delete savings.bySession[session];
  savings.bySession[session] = {
    before: s.before + before,
    after: s.after + after,
    requests: s.requests + 1,
    rewrites: s.rewrites + (figures.prefixRewritten > 0 ? 1 : 0),
    waiting: figures.rewrites.waiting,
    bankedUsd: figures.rewrites.bankedUsd,
  };
  const sessions = Object.keys(savings.bySession);
  if (sessions.length > MAX_SESSIONS) delete savings.bySession[sessions[0] as string];
  const minute = minuteOf(savings, now);
  minute.before += before;
  minute.after += after;
  savings.recent.push(...figures.decisions);
  savings.recent.splice(0, Math.max(0, savings.recent.length - MAX_RECENT));
}

/** One answer: its usage (undefined when it reported none) and the request it answered. */
export interface AnsweredRequest {
  usage: InputUsage | undefined;
  /** The bytes sent upstream, for the estimate when the answer reported no usage. */
  bytesSent: number;
  price: ModelPrice | undefined;
  figures: RequestFigures;
  /** The request went up unchanged (observe mode): the usage is of the original. */
  observe: boolean;
}

/**
 * Adds one answer's input and cost: the provider's own usage where reported, else an estimate
 * from the bytes sent (at the base price); what the same request costs on the other side
 * (without spillway, or with it in observe mode) from the tokens it saved.
 *
 * @example
 * recordAnswer(stats.savings, { usage, bytesSent, price, figures, observe: false }, new Date());
 */
export function recordAnswer(savings: Savings, answer: AnsweredRequest, now: Date): void {
  const usage = answer.usage ?? { input: Math.ceil(answer.bytesSent / 4), cacheRead: 0, cacheWrite: 0 };
  savings.answers++;
  if (answer.usage) savings.reported++;
  else savings.estimated++;
  savings.input.input += usage.input;
  savings.input.cacheRead += usage.cacheRead;
  savings.input.cacheWrite += usage.cacheWrite;
  const { savedInPrefix, savedNew, prefixRewritten } = answer.figures;
  savings.savedInPrefix += savedInPrefix;
  savings.savedNew += savedNew;
  const saved = savedInPrefix + savedNew;
  savings.inputWithoutSpillway += totalInput(usage) + (answer.observe ? 0 : saved);
  const cost = savings.cost;
  if (!answer.price) {
    cost.unpriced++;
    return;
  }
  const price = answer.price;
  const billed = costOf(usage, price);
  const savedCost = costOf({ input: 0, cacheRead: savedInPrefix, cacheWrite: savedNew }, price);
  cost.billed += billed;
  cost.withoutSpillway += answer.observe ? billed : billed + savedCost;
  cost.withSpillway += answer.observe ? Math.max(0, billed - savedCost) : billed;
  cost.saved = cost.withoutSpillway - cost.withSpillway;
  cost.prefixRewrites += (prefixRewritten * Math.max(0, price.cacheWrite - price.cacheRead)) / 1e6;
  const minute = minuteOf(savings, now);
  minute.billed += billed;
  minute.withoutSpillway += answer.observe ? billed : billed + savedCost;
}

function minuteOf(savings: Savings, now: Date): Savings['timeline'][number] {
  const key = now.toISOString().slice(0, 16);
  const last = savings.timeline.at(-1);
  if (last?.minute === key) return last;
  const minute = { minute: key, before: 0, after: 0, billed: 0, withoutSpillway: 0 };
  savings.timeline.push(minute);
  savings.timeline.splice(0, Math.max(0, savings.timeline.length - MAX_MINUTES));
  return minute;
}

/**
 * The savings' lines of /metrics (Prometheus text): answers by where their usage came from,
 * input tokens by how they were billed, cost by side.
 *
 * @example
 * savingsMetrics(stats.savings).join('\n');
 */
export function savingsMetrics(savings: Savings): string[] {
  const lines: string[] = [];
  const counter = (name: string, help: string, samples: [string, number][]) => {
    lines.push(`# HELP spillway_${name} ${help}`, `# TYPE spillway_${name} counter`);
    for (const [labels, value] of samples)
      lines.push(`spillway_${name}${labels ? `{${labels}}` : ''} ${value}`);
  };
  counter('answers_total', 'Answers to conversation requests, by where their input count came from.', [
    ['usage="reported"', savings.reported],
    ['usage="estimated"', savings.estimated],
  ]);
  counter('input_tokens_total', 'Input tokens of the answered requests as sent, by how they were billed.', [
    ['billed_as="input"', savings.input.input],
    ['billed_as="cache_read"', savings.input.cacheRead],
    ['billed_as="cache_write"', savings.input.cacheWrite],
  ]);
  counter(
    'input_tokens_without_spillway_total',
    'Input tokens the same requests would have had without spillway (estimated).',
    [['', savings.inputWithoutSpillway]],
  );
  const c = savings.cost;
  counter('input_cost_usd_total', `Input cost of the priced answers in USD (prices as of ${c.pricesAsOf}).`, [
    ['side="billed"', c.billed],
    ['side="without_spillway"', c.withoutSpillway],
    ['side="with_spillway"', c.withSpillway],
    ['side="prefix_rewrites"', c.prefixRewrites],
  ]);
  counter('unpriced_answers_total', 'Answers whose model has no known price.', [['', c.unpriced]]);
  return lines;
}
