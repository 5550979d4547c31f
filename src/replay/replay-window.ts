import type { ConversationEngine } from '../engine/index.js';
import { contentText, type ToolCallInput, type ToolResult } from '../text/index.js';
import type { Conversation } from './transcript.js';

/** What a replay counts of its window: the guard's work, and the estimate against the provider. */
export interface WindowCounters {
  /** Turns the window guard acted on, and the results it masked or collapsed. */
  guard: { events: number; masked: number; collapsed: number; cleared: number; unfit: number };
  /**
   * Requests whose provider count the transcript records, and the sums of the estimate's
   * relative errors against it: raw, and calibrated (all samples but the first).
   */
  estimate: { samples: number; rawErrors: number; calibrated: number; calibratedErrors: number };
}

/**
 * Where the transcript records what the provider counted for a request, how far spillway's
 * estimate of it was: raw (the results and other text it can see) and calibrated by the factor
 * the turn before taught. The transcript leaves out the system prompt and tool definitions,
 * which the factor absorbs.
 *
 * @example
 * learnEstimate(engine, replay, conversation, turn, run.tokensBefore + other);
 */
export function learnEstimate(
  engine: ConversationEngine,
  replay: WindowCounters,
  conversation: Conversation,
  turn: number,
  raw: number,
): void {
  const truth = conversation.providerTokens?.[turn];
  if (truth === undefined) return;
  const sample = engine.calibration.observe(conversation.model ?? 'unknown', raw, truth);
  if (!sample) return;
  const e = replay.estimate;
  // The first sample has no factor to be calibrated with yet.
  if (e.samples > 0) {
    e.calibrated++;
    e.calibratedErrors += sample.calibratedError;
  }
  e.rawErrors += sample.rawError;
  e.samples++;
}

/**
 * The window guard on a turn whose results are over the limit after the stages: what the proxy
 * would send instead (results, and calls whose large inputs it cleared), and its tool-result
 * tokens. Undefined when the turn was under the limit. `otherTokens` is the rest of the request
 * as it would go out (calls cleared before already counted cleared), `calls` its calls so.
 *
 * @example
 * const guarded = await guardTurn(engine, replay, input, run, { limit, otherTokens: other, calls });
 */
export async function guardTurn(
  engine: ConversationEngine,
  replay: WindowCounters,
  input: readonly ToolResult[],
  run: { results: readonly ToolResult[]; tokensAfter: number },
  request: { limit: number; otherTokens: number; calls: readonly ToolCallInput[] },
): Promise<{ results: readonly ToolResult[]; after: number; inputs: Map<number, string> } | undefined> {
  const { limit, otherTokens, calls } = request;
  if (run.tokensAfter + otherTokens <= limit) return undefined;
  const fit = await engine.fitWindow(input, run.results, {
    requestTokens: run.tokensAfter + otherTokens,
    limit,
    ratio: 1,
    calls,
  });
  replay.guard.events++;
  if (!fit.plan.fits) replay.guard.unfit++;
  replay.guard.masked += fit.masked;
  replay.guard.collapsed += fit.collapsed;
  replay.guard.cleared += fit.inputs.size;
  const after = fit.results.reduce((n, r) => n + engine.count(contentText(r.content)), 0);
  return { results: fit.results, after, inputs: fit.inputs };
}
