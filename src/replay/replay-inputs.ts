import { type ConversationEngine, callsAsSent, restoreInput, type TurnOutcome } from '../engine/index.js';
import type { Store } from '../store/index.js';
import { recallAll } from '../store/recall/index.js';
import type { ToolCallInput, ToolResult } from '../text/index.js';
import { guardTurn, type WindowCounters } from './replay-window.js';

/** What a replay counts of cleared calls. */
export interface InputCounters {
  /** Markers whose id does not recall the exact original (must be 0). */
  recallFailures: { id: string; tool: string; markerId: string }[];
  /** Old tool calls whose large arguments were cleared (by mask with `inputs`, or the guard). */
  inputsCleared: number;
}

/**
 * The tool calls of a replayed conversation, as its requests would carry them (one per result
 * whose call the transcript records, its arguments as text, built once), and what clearing
 * their old large inputs saved. A transcript records a call's arguments parsed: JSON arguments
 * are counted as `JSON.stringify` writes them, a string as it is (a freeform input).
 *
 * @example
 * const calls = new ReplayCalls();
 * calls.add(conversation.turns[0]);
 * const run = await engine.turn({ results, messageCount: 1, calls: calls.calls });
 * const { saved } = await calls.record(run.inputs, 0, engine.count, store);
 */
export class ReplayCalls {
  readonly calls: ToolCallInput[] = [];
  /** Tokens each cleared call saves (by index into `calls`), from the turn it was cleared on. */
  readonly #saved = new Map<number, number>();
  #total = 0;

  /** Adds the calls of a turn's results. */
  add(results: readonly ToolResult[]): void {
    for (const r of results) {
      if (r.input === undefined || r.input === null) continue;
      const freeform = typeof r.input === 'string';
      const text = freeform ? (r.input as string) : JSON.stringify(r.input);
      this.calls.push({ id: r.id, tool: r.tool, position: r.position, text, freeform });
    }
  }

  /** The calls as the request would send them, with the cleared ones' new arguments. */
  current(inputs: ReadonlyMap<number, string>): ToolCallInput[] {
    return callsAsSent(this.calls, inputs);
  }

  /** How many calls are cleared so far. */
  get cleared(): number {
    return this.#saved.size;
  }

  /**
   * Takes in the calls a turn sends cleared (replayed or new). For each newly cleared one:
   * counts what it saves, checks that its markers give back its exact arguments (a failure is
   * returned by call id), and notes whether it sat in the cached prefix (its turn before this
   * one). Returns the tokens saved by all cleared calls so far.
   */
  async record(
    inputs: ReadonlyMap<number, string>,
    turn: number,
    count: (text: string) => number,
    store: Store,
  ): Promise<{ saved: number; rewriteFrom?: number; failures: ToolCallInput[] }> {
    let rewriteFrom: number | undefined;
    const failures: ToolCallInput[] = [];
    for (const [i, text] of inputs) {
      const call = this.calls[i];
      if (!call || this.#saved.has(i)) continue;
      const saved = count(call.text) - count(text);
      this.#saved.set(i, saved);
      this.#total += saved;
      if (call.position < turn) rewriteFrom = Math.min(rewriteFrom ?? call.position, call.position);
      const recall = async (id: string) => (await recallAll(id, { store })).toString('utf8');
      const restored = await restoreInput(text, call.freeform, recall).catch(() => undefined);
      const expected = call.freeform ? call.text : JSON.stringify(JSON.parse(call.text));
      if (restored !== expected) failures.push(call);
    }
    return { saved: this.#total, ...(rewriteFrom !== undefined ? { rewriteFrom } : {}), failures };
  }
}

/**
 * The turn's cleared calls (replayed, or cleared by mask), then the window guard over what
 * would go out: its results, the tokens cleared calls save (so far), and the earliest turn
 * whose call was newly cleared in the cached prefix.
 *
 * @example
 * const { guarded, otherSaved } = await guardWithInputs(engine, replay, calls, { input, run, turn, limit, other, store });
 */
export async function guardWithInputs(
  engine: ConversationEngine,
  replay: InputCounters & WindowCounters,
  calls: ReplayCalls,
  at: {
    input: ToolResult[];
    run: TurnOutcome;
    turn: number;
    limit: number | undefined;
    other: number;
    store: Store;
  },
): Promise<{ guarded?: Awaited<ReturnType<typeof guardTurn>>; otherSaved: number; inputsFrom?: number }> {
  const record = { turn: at.turn, count: engine.count, store: at.store };
  const cleared = await recordInputs(replay, calls, at.run.inputs, record);
  if (at.limit === undefined) return { otherSaved: cleared.saved, inputsFrom: cleared.rewriteFrom };
  const guarded = await guardTurn(engine, replay, at.input, at.run, {
    limit: at.limit,
    otherTokens: at.other - cleared.saved,
    calls: calls.current(at.run.inputs),
  });
  const byGuard = guarded ? await recordInputs(replay, calls, guarded.inputs, record) : cleared;
  return { guarded, otherSaved: byGuard.saved, inputsFrom: minOf(cleared.rewriteFrom, byGuard.rewriteFrom) };
}

/** Takes in a turn's cleared calls (see ReplayCalls.record): counts them, and any that would not recall. */
async function recordInputs(
  replay: InputCounters & WindowCounters,
  calls: ReplayCalls,
  inputs: ReadonlyMap<number, string>,
  at: { turn: number; count: (text: string) => number; store: Store },
): Promise<{ saved: number; rewriteFrom?: number }> {
  const recorded = await calls.record(inputs, at.turn, at.count, at.store);
  replay.inputsCleared = calls.cleared;
  for (const call of recorded.failures)
    replay.recallFailures.push({ id: call.id, tool: call.tool, markerId: 'tool input' });
  return recorded;
}

function minOf(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}
