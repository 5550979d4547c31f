import { type ToolResult, textOf } from '../text/index.js';
import type { TurnOutcome } from './conversation.js';

/** A decision of this request, as the dashboard shows it: what the model sees, and its recall id. */
export interface RecentDecision {
  at: string;
  session: string;
  tool: string;
  stages: string[];
  tokensBefore: number;
  tokensAfter: number;
  /** Recall id of the original (absent for lossless changes). */
  stashId?: string;
  /** The start of what the model sees instead of the original. */
  view: string;
}

/** What one request's tool results came to: the counts the savings figures are made of. */
export interface RequestFigures {
  /** Tool-result tokens taken out of results in the cached prefix (read from the cache each request). */
  savedInPrefix: number;
  /** Tool-result tokens taken out of results new in this request (written to the cache once). */
  savedNew: number;
  /**
   * Tool-result tokens from the first result changed inside the cached prefix this request to
   * the prefix's end: written to the cache again (a lower bound: only results are counted).
   */
  prefixRewritten: number;
  /** Tokens before and after, by tool. */
  byTool: Record<string, { before: number; after: number }>;
  /** The results a stage changed in this request. */
  decisions: RecentDecision[];
  /**
   * The conversation's weighing of prefix rewrites after this request: old results that wait
   * because taking them out would not pay yet, what spillway has saved it (USD, at its cache
   * prices) that a rewrite must be covered by, and the requests it expects still.
   */
  rewrites: { waiting: number; bankedUsd: number; remaining: number };
}

/**
 * Adds tokens before and after to a table's row (made on first sight).
 *
 * @example
 * addTokens(byTool, 'Bash', 4000, 900);
 */
export function addTokens(
  table: Record<string, { before: number; after: number }>,
  key: string,
  before: number,
  after: number,
): void {
  const row = table[key] ?? { before: 0, after: 0 };
  row.before += before;
  row.after += after;
  table[key] = row;
}

// The dashboard shows this much of each decision's view; the whole one is the result itself.
const VIEW_CHARS = 4000;

/**
 * The figures of one request from its turn: tokens saved where the cache reads them and where
 * it writes them, what was written again, by tool, and the results changed this request.
 *
 * @example
 * const figures = requestFigures(turn, view.results, session, new Date());
 */
export function requestFigures(
  turn: TurnOutcome,
  results: readonly ToolResult[],
  session: string,
  now: Date,
): RequestFigures {
  const figures: RequestFigures = {
    savedInPrefix: 0,
    savedNew: 0,
    prefixRewritten: 0,
    byTool: Object.create(null),
    decisions: [],
    rewrites: {
      waiting: (['mask', 'supersede'] as const).reduce(
        (n, stage) => n + (turn.stats[stage]?.declined.does_not_pay ?? 0),
        0,
      ),
      bankedUsd: (turn.rewrites?.banked ?? 0) / 1e6,
      remaining: turn.rewrites?.remaining ?? 0,
    },
  };
  let firstRewrite: number | undefined;
  turn.outcomes.forEach((outcome, i) => {
    const result = results[i];
    if (!result) return;
    const inPrefix = result.position < turn.cachedPrefix;
    const saved = outcome.tokensBefore - outcome.tokensAfter;
    if (inPrefix) figures.savedInPrefix += saved;
    else figures.savedNew += saved;
    addTokens(figures.byTool, result.tool || '(unnamed)', outcome.tokensBefore, outcome.tokensAfter);
    if (outcome.status !== 'changed') return;
    if (inPrefix && firstRewrite === undefined) firstRewrite = result.position;
    figures.decisions.push({
      at: now.toISOString(),
      session,
      tool: result.tool,
      stages: outcome.actedBy,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      ...(outcome.stashId ? { stashId: outcome.stashId } : {}),
      view: (textOf(turn.results[i]?.content ?? '') ?? '(blocks)').slice(0, VIEW_CHARS),
    });
  });
  if (firstRewrite !== undefined)
    turn.outcomes.forEach((outcome, i) => {
      const position = results[i]?.position ?? -1;
      if (position >= (firstRewrite as number) && position < turn.cachedPrefix)
        figures.prefixRewritten += outcome.tokensAfter;
    });
  return figures;
}
