import { EXPAND_TOOL } from '../../tools/index.js';

/** A JSON object of a request or an answer. */
export type Json = Record<string, unknown>;

/** How many rounds of recall one request may answer before the model is told to answer. */
export const MAX_RECALL_ROUNDS = 8;
/** At most this many recall calls are answered in one round (the rest get an error text). */
export const MAX_CALLS_PER_ROUND = 16;

/** One piece of the model's turn, in order: a call of the offered tool, of the agent's own tool, or anything else. */
export interface TurnPart {
  kind: 'recall' | 'agent' | 'other';
  /** The API's own item (a content block, a tool call, an output item, a part). */
  item: Json;
}

/** One recall call: the call's id for its answer, its arguments (undefined when not JSON). */
export interface RecallCall {
  callId: string;
  name: string;
  args: unknown;
}

/** What the proxy does with a turn. */
export type TurnDecision =
  /** No recall in it: the turn goes to the agent as the model wrote it. */
  | { action: 'pass' }
  /** Recall after the agent already got a call of its own, or past the bound: cut at the first recall. */
  | { action: 'strip'; kept: TurnPart[]; agentCalls: boolean }
  /** Answer the recall calls and ask again; `history` is what the model said up to and with them. */
  | { action: 'recall'; history: TurnPart[] };

/** Is this the tool spillway offered? Exactly its name: a client's own (prefixed) tool is the client's. */
export const isOfferedTool = (name: unknown): boolean => name === EXPAND_TOOL;

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

/**
 * Two usage objects added: every number at any depth summed, anything else taken from the later
 * one (the rounds of one answer report as one).
 *
 * @example
 * sumUsage({ input_tokens: 10, details: { cached_tokens: 2 } }, { input_tokens: 5, details: { cached_tokens: 1 } });
 * // { input_tokens: 15, details: { cached_tokens: 3 } }
 */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a === undefined || a === null) return b;
  if (b === undefined || b === null) return a;
  if (typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return b;
  const out: Json = { ...(a as Json) };
  for (const [key, value] of Object.entries(b as Json)) out[key] = sumUsage(out[key], value);
  return out;
}
