import { type CollapseOptions, collapseText } from '../collapse/index.js';
import { type Store, stashOriginal } from '../store/index.js';
import {
  contentText,
  MASK_PREFIX,
  maskPlaceholder,
  originalOf,
  SUPERSEDED_PREFIX,
  type ToolCallInput,
  type ToolResult,
  textOf,
} from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { commitClear, type PlannedClear, planClear } from './clear-inputs.js';
import type { FrozenDecisions } from './frozen.js';
import {
  cappedCount,
  type GuardCandidate,
  type GuardPlan,
  type InputCandidate,
  planWindowGuard,
  windowCap,
} from './window-guard.js';

/** The research default (masking keeps the 10 most recent observations). */
export const DEFAULT_PROTECT_RECENT = 10;

/** What the whole request holds, and what it may hold. */
export interface WindowRequest {
  /**
   * Raw tokens of the whole request as it would go out, its tool results included, each message
   * counted as {@link cappedCount} counts it with {@link windowCap} of this limit and ratio.
   */
  requestTokens: number;
  /** The most the calibrated request may hold: window - output tokens - margin. */
  limit: number;
  /** Calibration factor for raw counts (1 when nothing is known). */
  ratio: number;
  /** The newest this many results are touched last (default {@link DEFAULT_PROTECT_RECENT}). */
  protectRecent?: number;
  /**
   * The request's tool calls as they would go out now (inputs cleared before already cleared):
   * the large arguments of old ones may be cleared too. The newest `protectRecent` are not.
   */
  calls?: readonly ToolCallInput[];
}

/** What the guard did to one turn. */
export interface WindowFit {
  plan: GuardPlan;
  /** The turn's results after the guard; the same array when it did nothing or could not fit. */
  results: readonly ToolResult[];
  masked: number;
  collapsed: number;
  /** New arguments of the calls whose large inputs it cleared (by index into `calls`). */
  inputs: Map<number, string>;
}

export interface FitDeps {
  store: Store;
  tokenizer: Tokenizer;
  frozen?: FrozenDecisions | undefined;
  collapse?: CollapseOptions | undefined;
  isExempt: (tool: string) => boolean;
  /** Counts with a memory (for results seen turn after turn), reading no further than `limit`. */
  countUpTo: (text: string, limit: number) => number;
}

/**
 * Makes a turn's request fit its window by tool results alone: plans with
 * {@link planWindowGuard}, then stashes each original it masks or collapses (so every marker
 * recalls it) and freezes the new form, so later turns replay it and the cached prefix moves
 * only this once. Does nothing when the plan cannot fit.
 *
 * @example
 * const fit = await fitWindow(deps, originals, run.results, { requestTokens, limit: 180_000, ratio: 1 });
 */
export async function fitWindow(
  deps: FitDeps,
  originals: readonly ToolResult[],
  results: readonly ToolResult[],
  request: WindowRequest,
): Promise<WindowFit> {
  const protect = request.protectRecent ?? DEFAULT_PROTECT_RECENT;
  const cap = windowCap(request.limit, request.ratio);
  const texts = results.map((result) => contentText(result.content));
  const movable = texts.map(
    (text, i) =>
      !deps.isExempt((results[i] as ToolResult).tool) &&
      !text.startsWith(MASK_PREFIX) &&
      !text.startsWith(SUPERSEDED_PREFIX),
  );
  // Nothing the guard may touch: it cannot fit, and its results need not be counted to know it.
  const candidates: GuardCandidate[] = !movable.includes(true)
    ? []
    : texts.map((text, index) => ({
        index,
        tokens: cappedCount(deps.countUpTo, text, cap),
        recent: index >= results.length - protect,
        movable: movable[index] === true,
        collapsible: textOf((originals[index] as ToolResult).content) !== null,
      }));
  const maskTokens = deps.countUpTo(
    maskPlaceholder('tool_name', 'call_0123456789abcdef', 100_000, 'x'.repeat(22)),
    Number.POSITIVE_INFINITY,
  );
  // What is not a tool result, from the request's own count: the results are counted once, here.
  const otherTokens = Math.max(0, request.requestTokens - candidates.reduce((n, c) => n + c.tokens, 0));
  const planned = new Map<number, PlannedClear>();
  const plan = planWindowGuard(
    candidates,
    { otherTokens, limit: request.limit, ratio: request.ratio, maskTokens },
    inputCandidates(deps, request.calls ?? [], protect, planned),
  );
  const fit: WindowFit = { plan, results, masked: 0, collapsed: 0, inputs: new Map() };
  if (!plan.fits) return fit;
  for (const index of plan.clear) {
    const call = request.calls?.[index] as ToolCallInput;
    const clear = planned.get(index) as PlannedClear;
    await commitClear(deps.store, deps.frozen, call, clear);
    fit.inputs.set(index, clear.text);
  }
  if (plan.mask.length === 0 && plan.collapse.length === 0) return fit;
  const out = [...results];
  for (const index of plan.mask) {
    const original = originals[index] as ToolResult;
    const stored = originalOf(original.content);
    const stashId = await stashOriginal(deps.store, stored);
    const content = maskPlaceholder(original.tool, original.id, candidates[index]?.tokens ?? 0, stashId);
    out[index] = { ...(results[index] as ToolResult), content };
    await deps.frozen?.set(original.id, stored.hash(), { content, stage: 'window_guard', stashId });
    fit.masked++;
  }
  for (const { index, budget } of plan.collapse) {
    const original = originals[index] as ToolResult;
    const stored = originalOf(original.content);
    const collapsed = await collapseText(
      textOf(original.content) ?? '',
      { ...deps.collapse, budget },
      { tokenizer: deps.tokenizer, id: () => stored.id(), stash: () => stashOriginal(deps.store, stored) },
    );
    if (collapsed.action !== 'acted') continue;
    out[index] = { ...(results[index] as ToolResult), content: collapsed.text };
    await deps.frozen?.set(original.id, stored.hash(), {
      content: collapsed.text,
      stage: 'window_guard',
      ...(collapsed.fallback ? {} : { stashId: stored.id() }),
    });
    fit.collapsed++;
  }
  return { ...fit, results: out };
}

/**
 * The old calls (outside the newest `protect`) whose large arguments could be cleared, oldest
 * first, each planned only when the guard asks for it (masking may be enough); the plans are
 * kept in `planned` by index.
 */
function* inputCandidates(
  deps: FitDeps,
  calls: readonly ToolCallInput[],
  protect: number,
  planned: Map<number, PlannedClear>,
): Generator<InputCandidate> {
  const count = (text: string) => deps.countUpTo(text, Number.POSITIVE_INFINITY);
  for (const [index, call] of calls.slice(0, Math.max(0, calls.length - protect)).entries()) {
    if (deps.isExempt(call.tool)) continue;
    const plan = planClear(call, count);
    if (!plan) continue;
    planned.set(index, plan);
    yield { index, saved: plan.saved };
  }
}
