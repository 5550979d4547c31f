import type { Store } from '../store/index.js';
import { contentText, type ToolCallInput } from '../text/index.js';
import { commitClear, type PlannedClear, planClear } from './clear-inputs.js';
import type { FrozenDecisions } from './frozen.js';
import {
  chooseRewrites,
  prefixEconomics,
  type RequestEconomics,
  type RewriteCandidate,
} from './rewrite-pays.js';
import type { StagesRun } from './runner.js';
import { dueCount, type MaskOptions } from './stages/index.js';

/** What clearing a conversation's old inputs needs of its engine. */
export interface ClearDeps {
  store: Store;
  frozen: FrozenDecisions | undefined;
  /** The engine config's mask options: inputs are cleared only with `inputs: true`. */
  mask: MaskOptions | undefined;
  isExempt: (tool: string) => boolean;
  count: (text: string) => number;
}

/**
 * `mask` with `inputs`: clears the large arguments of the calls its batch rule makes due (and
 * not cleared before, so not in `inputs`) where that pays as for results (see rewrite-pays.ts),
 * stashing and freezing each and adding its new text to `inputs`; a call whose strings cannot
 * be stashed (over quota) keeps its arguments. Returns how many it cleared.
 *
 * @example
 * const cleared = await clearDueInputs(deps, { calls, inputs, economics, run, after });
 */
export async function clearDueInputs(
  deps: ClearDeps,
  turn: {
    calls: readonly ToolCallInput[];
    inputs: Map<number, string>;
    economics: RequestEconomics;
    run: StagesRun;
    after: PromiseLike<unknown> | undefined;
  },
): Promise<number> {
  const { calls, inputs } = turn;
  if (deps.mask?.inputs !== true) return 0;
  const candidates: RewriteCandidate<{ index: number; planned: PlannedClear }>[] = [];
  for (const [index, call] of calls.slice(0, dueCount(calls.length, deps.mask)).entries()) {
    if (inputs.has(index) || deps.isExempt(call.tool)) continue;
    const planned = planClear(call, deps.count);
    if (planned)
      candidates.push({ item: { index, planned }, position: call.position, saving: planned.saved });
  }
  if (candidates.length === 0) return 0;
  const results = turn.run.results.map((r) => ({ position: r.position, text: () => contentText(r.content) }));
  const chosen = chooseRewrites(candidates, prefixEconomics(turn.economics, results, deps.count));
  let cleared = 0;
  for (const { index, planned } of chosen) {
    try {
      await commitClear(deps.store, deps.frozen, calls[index] as ToolCallInput, planned, turn.after);
    } catch {
      continue;
    }
    inputs.set(index, planned.text);
    cleared++;
  }
  return cleared;
}
