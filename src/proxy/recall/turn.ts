import type { TurnPart } from '../../providers/index.js';

/** How many rounds of recall one request may answer before the model is told to answer. */
export const MAX_RECALL_ROUNDS = 8;
/** At most this many recall calls are answered in one round (the rest get an error text). */
export const MAX_CALLS_PER_ROUND = 16;

/** What the proxy does with a turn. */
export type TurnDecision =
  /** No recall in it: the turn goes to the agent as the model wrote it. */
  | { action: 'pass' }
  /** Recall after the agent already got a call of its own, or past the bound: cut at the first recall. */
  | { action: 'strip'; kept: TurnPart[]; agentCalls: boolean }
  /** Answer the recall calls and ask again; `history` is what the model said up to and with them. */
  | { action: 'recall'; history: TurnPart[] };

/**
 * What to do with a model's turn: everything from its first recall call on is spillway's. A turn
 * whose agent calls come before it (the agent has or would have them) is cut there; so is one
 * past the bound. Otherwise the recall calls are answered (agent calls after them are dropped:
 * the model, having read the recall, calls them again).
 *
 * @example
 * decideTurn([{ kind: 'other', item: text }, { kind: 'recall', item: call }], 0); // { action: 'recall', history: [...] }
 */
export function decideTurn(parts: readonly TurnPart[], roundsDone: number): TurnDecision {
  const first = parts.findIndex((p) => p.kind === 'recall');
  if (first < 0) return { action: 'pass' };
  const before = parts.slice(0, first);
  const agentCalls = before.some((p) => p.kind === 'agent');
  if (agentCalls || roundsDone >= MAX_RECALL_ROUNDS) return { action: 'strip', kept: before, agentCalls };
  return { action: 'recall', history: [...before, ...parts.slice(first).filter((p) => p.kind === 'recall')] };
}
