import { breatheBefore } from '../breathe.js';
import { recordOwnOutput } from '../collapse/index.js';
import { toError } from '../errors.js';
import { type Content, contentBytes, type ToolResult } from '../text/index.js';
import { statsCount, type Tokenizer } from '../text/tokenizers/index.js';
import { type ResultOutcome, type RunItem, runItem } from './run-item.js';
import { bump, emptyStats, type StageStats } from './stage-stats.js';
import { type ToolOverride, toolOverride } from './tool-overrides.js';
import type { Decision, DeclineReason, RevertCause, Stage, StageContext, StageName } from './types.js';

export interface StagesRun {
  results: ToolResult[];
  outcomes: ResultOutcome[];
  stats: Partial<Record<StageName, StageStats>>;
  /** Frozen decisions replayed, and new ones that could not be persisted. */
  frozenReplayed: number;
  freezeFailures: number;
  /**
   * Tokens of every result, as they came in and as they go out (the statistics tokenizer; a
   * text over 1 MiB estimated from samples of it).
   */
  tokensBefore: number;
  tokensAfter: number;
}

export interface RunOptions {
  tools?: Readonly<Record<string, ToolOverride>>;
}

/**
 * Runs stages in order over the tool results of one request, enforcing for every stage: an
 * exception reverts its change and is counted; a change that makes a result larger is reverted
 * (never worse); a lossy change without a stash id is reverted (unless it is the declared
 * stash-failed fallback); results that came in already marked are skipped by lossy stages.
 * Decisions of earlier turns (in `ctx.frozen`) are replayed byte for byte; new decisions touch
 * only results after `ctx.cachedPrefix` (pure stages also before it on a cold cache), and are
 * frozen for later turns. Most callers want {@link ConversationEngine}, which sets all of this.
 *
 * @example
 * const run = await runStages(results, resolveEngineConfig({ preset: 'balanced' }).stages, { store, tokenizer, cachedPrefix: 0 });
 * run.results; // same order, new content where a stage acted
 */
export async function runStages(
  input: readonly ToolResult[],
  stages: readonly Stage[],
  ctx: StageContext,
  options: RunOptions = {},
): Promise<StagesRun> {
  const items: RunItem[] = [];
  for (const result of input)
    items.push(await runItem(result, ctx, toolOverride(options.tools, result.tool)));
  const stats: Partial<Record<StageName, StageStats>> = {};
  const count = statsCounter(ctx.statsTokenizer ?? ctx.tokenizer);
  const bytes = items.reduce((n, item) => n + item.bytes(), 0);
  for (const stage of stages) {
    await breatheBefore(bytes);
    stats[stage.name] ??= emptyStats();
    await runStage(stage, items, ctx, stats[stage.name] as StageStats, count);
  }
  // What spillway wrote is recorded, so it is recognised when it comes back (not its markers).
  for (const item of items) if (item.changed) await recordOwnOutput(ctx.store, item.content).catch(() => {});
  const freezeFailures = await freeze(items, ctx);
  const tokens = measureAll(items, count);
  return {
    results: items.map((item) =>
      item.content === item.result.content ? item.result : { ...item.result, content: item.content },
    ),
    outcomes: items.map((item) => item.outcome),
    stats,
    frozenReplayed: items.filter((item) => item.frozen).length,
    freezeFailures,
    ...tokens,
  };
}

type Count = (content: Content, bytes: number) => number;

/** Tokens for the statistics (see {@link statsCount}). */
function statsCounter(tokenizer: Tokenizer): Count {
  return (content, bytes) => statsCount(tokenizer, content, bytes);
}

/**
 * Why a stage may not look at an item (undefined: it may; 'skip': silently not, a frozen
 * result), short of the marker check: that one may wait, so the caller makes it only for a
 * lossy stage the item passed. A long session's turn asks this of every stage for every result,
 * most of them frozen, without an await each.
 */
function gate(stage: Stage, item: RunItem, ctx: StageContext): DeclineReason | 'skip' | undefined {
  if (item.override?.exempt) return 'exempt_tool';
  if (item.frozen && !stage.actsOnPrefix) return 'skip';
  const cached = item.result.position < ctx.cachedPrefix;
  if (cached && !stage.actsOnPrefix && !(stage.pure && ctx.coldCache)) return 'cached_prefix';
  return undefined;
}

async function runStage(
  stage: Stage,
  items: RunItem[],
  ctx: StageContext,
  s: StageStats,
  count: Count,
): Promise<void> {
  s.runs++;
  const eligible: RunItem[] = [];
  for (const item of items) {
    let reason = gate(stage, item, ctx);
    if (reason === undefined && stage.lossy && (await item.cameMarked())) reason = 'already_marked';
    if (reason === undefined) eligible.push(item);
    else if (reason !== 'skip') record(stage, item, s, reason);
  }
  if (eligible.length === 0) return;
  let decisions: (Decision | Error)[];
  try {
    decisions = await stage.run(eligible, ctx, items);
  } catch (err) {
    decisions = eligible.map(() => toError(err));
  }
  eligible.forEach((item, k) => {
    apply(stage, item, decisions[k] ?? new Error(`stage ${stage.name} returned no decision`), s, count);
  });
}

function record(stage: Stage, item: RunItem, s: StageStats, outcome: DeclineReason): void {
  bump(s.declined, outcome);
  item.outcome.trail.push({ stage: stage.name, outcome });
}

function revert(stage: Stage, item: RunItem, s: StageStats, cause: RevertCause): void {
  bump(s.reverted, cause);
  item.outcome.trail.push({ stage: stage.name, outcome: `reverted:${cause}` });
}

/** Takes a stage's decision on one item, or reverts it under the runner's rules. */
function apply(stage: Stage, item: RunItem, decision: Decision | Error, s: StageStats, count: Count): void {
  if (decision instanceof Error) {
    revert(stage, item, s, 'threw');
    return;
  }
  if (decision.action === 'declined') {
    record(stage, item, s, decision.reason);
    if (decision.detail) item.outcome.detail = decision.detail;
    return;
  }
  // Sizes are measured once per content (a 15 MB original is not re-measured by every stage).
  const beforeBytes = item.bytes();
  const afterBytes = decision.bytes ?? contentBytes(decision.content);
  const cause: RevertCause | undefined =
    afterBytes > beforeBytes ? 'grew' : stage.lossy && !decision.stashId ? 'lossy_without_stash' : undefined;
  if (cause) {
    revert(stage, item, s, cause);
    return;
  }
  s.acted++;
  s.tokensBefore += count(item.content, beforeBytes);
  s.tokensAfter += count(decision.content, afterBytes);
  if (decision.detail?.window !== undefined) bump(s.events, `${decision.detail.window}_window`);
  item.setContent(decision.content, afterBytes);
  item.lossyActed ||= stage.lossy;
  item.changed = true;
  const { outcome } = item;
  outcome.actedBy.push(stage.name);
  outcome.trail.push({ stage: stage.name, outcome: 'acted' });
  if (decision.stashId) outcome.stashId = decision.stashId;
  if (decision.detail) outcome.detail = decision.detail;
  outcome.status = 'changed';
}

/**
 * Freezes what was decided now, so later turns replay the same bytes whatever the config:
 * every change, and every new result in the tail (an "unchanged" decision included). The
 * decisions are written after the turn, in one record; returns how many records of earlier turns
 * could not be written (they are retried, and still replay in this process).
 */
async function freeze(items: readonly RunItem[], ctx: StageContext): Promise<number> {
  if (!ctx.frozen) return 0;
  let failures = ctx.frozen.takeFailures();
  for (const item of items) {
    if (!item.changed && (item.frozen || item.result.position < ctx.cachedPrefix)) continue;
    const { outcome } = item;
    const entry =
      item.changed || item.frozen
        ? {
            content: item.content,
            stage: outcome.actedBy.at(-1),
            ...(outcome.stashId ? { stashId: outcome.stashId } : {}),
          }
        : {};
    try {
      await ctx.frozen.set(item.result.id, item.originalHash(), entry, ctx.writeDecisionsAfter);
    } catch {
      failures++;
    }
  }
  return failures;
}

/** Every result's tokens before and after, from the sizes already measured where it can. */
function measureAll(items: readonly RunItem[], count: Count): { tokensBefore: number; tokensAfter: number } {
  let tokensBefore = 0;
  let tokensAfter = 0;
  for (const item of items) {
    const { outcome, result } = item;
    outcome.tokensAfter = count(item.content, item.bytes());
    outcome.tokensBefore =
      item.content === result.content ? outcome.tokensAfter : count(result.content, item.originalBytes());
    tokensBefore += outcome.tokensBefore;
    tokensAfter += outcome.tokensAfter;
  }
  return { tokensBefore, tokensAfter };
}
