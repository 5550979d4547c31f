import { stashKey } from '../store/ids.js';
import { type Content, contentBytes, contentText, textOf } from '../text/blocks.js';
import { hasMarker } from '../text/markers.js';
import { originalOf } from './original.js';
import type {
  DeclineReason,
  RevertCause,
  Stage,
  StageContext,
  StageItem,
  StageName,
  ToolResult,
} from './types.js';

/** Per-tool settings: a tool can be exempt, or get its own budget. */
export interface ToolOverride {
  exempt?: boolean;
  maxTokens?: number;
}

/** Counters of one stage over one run (or summed over many). */
export interface StageStats {
  runs: number;
  acted: number;
  declined: Partial<Record<DeclineReason, number>>;
  reverted: Partial<Record<RevertCause, number>>;
  /** Acted without a recallable original (the stash failed; the note says so). */
  fallbacks: { stash_failed?: number };
  tokensBefore: number;
  tokensAfter: number;
}

/** What happened to one result in one run. */
export interface ResultOutcome {
  id: string;
  /** `frozen`: replayed from an earlier turn; `changed`: some stage acted this run. */
  status: 'unchanged' | 'changed' | 'frozen';
  /** The stages that acted, in order. */
  actedBy: StageName[];
  /** Recall id of the stashed original, when a stage stashed it. */
  stashId?: string;
  /** Each stage's decision: `acted`, a decline reason, or `reverted:<cause>`. */
  trail: { stage: StageName; outcome: string }[];
}

export interface PipelineRun {
  results: ToolResult[];
  outcomes: ResultOutcome[];
  stats: Partial<Record<StageName, StageStats>>;
  /** Frozen decisions replayed, and new ones that could not be persisted. */
  frozenReplayed: number;
  freezeFailures: number;
}

export interface RunOptions {
  tools?: Readonly<Record<string, ToolOverride>>;
}

/**
 * The override for a tool: an exact name first, then the longest `prefix*` pattern.
 *
 * @example
 * toolOverride({ 'mcp__*': { exempt: true } }, 'mcp__github__get_issue'); // { exempt: true }
 */
export function toolOverride(
  tools: Readonly<Record<string, ToolOverride>> | undefined,
  tool: string,
): ToolOverride | undefined {
  if (!tools) return undefined;
  if (Object.hasOwn(tools, tool)) return tools[tool];
  let best: string | undefined;
  for (const pattern of Object.keys(tools)) {
    if (
      pattern.endsWith('*') &&
      tool.startsWith(pattern.slice(0, -1)) &&
      (!best || pattern.length > best.length)
    )
      best = pattern;
  }
  return best ? tools[best] : undefined;
}

function emptyStats(): StageStats {
  return { runs: 0, acted: 0, declined: {}, reverted: {}, fallbacks: {}, tokensBefore: 0, tokensAfter: 0 };
}

function bump<K extends string>(map: Partial<Record<K, number>>, key: K): void {
  map[key] = (map[key] ?? 0) + 1;
}

/**
 * Runs stages in order over the tool results of one request, enforcing for every stage: an
 * exception reverts its change and is counted; a change that makes a result larger is reverted
 * (never worse); a lossy change without a stash id is reverted (unless it is the declared
 * stash-failed fallback); results that came in already marked are skipped by lossy stages.
 * Decisions of earlier turns (in `ctx.frozen`) are replayed byte for byte; new decisions touch
 * only results after `ctx.cachedPrefix` (pure stages also before it on a cold cache), and are
 * frozen for later turns.
 *
 * @example
 * const run = await runPipeline(results, resolvePipeline({ preset: 'balanced' }).stages, { store, tokenizer, cachedPrefix: 0 });
 * run.results; // same order, new content where a stage acted
 */
export async function runPipeline(
  input: readonly ToolResult[],
  stages: readonly Stage[],
  ctx: StageContext,
  options: RunOptions = {},
): Promise<PipelineRun> {
  const statsTokenizer = ctx.statsTokenizer ?? ctx.tokenizer;
  // The heuristic is bytes / 4, and the bytes are already known: no second pass over the text.
  const statsCount = (content: Content, bytes: number) =>
    statsTokenizer.name === 'heuristic' ? Math.ceil(bytes / 4) : statsTokenizer.count(contentText(content));
  const bytesOf = (item: { content: Content; bytes?: number }) => {
    item.bytes ??= contentBytes(item.content);
    return item.bytes;
  };
  const stats: Partial<Record<StageName, StageStats>> = {};
  let frozenReplayed = 0;
  let freezeFailures = 0;

  const items: (StageItem & {
    frozen: boolean;
    override?: ToolOverride;
    cameMarked(): boolean;
    bytes?: number;
  })[] = [];
  const outcomes: ResultOutcome[] = [];
  for (const result of input) {
    const original = originalOf(result.content);
    const frozen = await ctx.frozen?.get(result.id, original.hash());
    if (frozen) frozenReplayed++;
    const override = toolOverride(options.tools, result.tool);
    let stashed: Promise<string> | undefined;
    let cameMarked: boolean | undefined;
    const item = {
      result,
      content: frozen?.content ?? result.content,
      original: result.content,
      lossyActed: false,
      frozen: frozen !== undefined,
      override,
      ...(override?.maxTokens !== undefined ? { maxTokens: override.maxTokens } : {}),
      originalHash: () => original.hash(),
      cameMarked: () => {
        cameMarked ??= hasMarker(textOf(result.content) ?? '');
        return cameMarked;
      },
      originalId: () => original.id(),
      stashOriginal: () => {
        stashed ??= (async () => {
          const key = stashKey(original.id());
          await ctx.store.putIfAbsent(key, original.body());
          return key.name;
        })();
        // A failed stash may be retried by a later stage.
        stashed.catch(() => {
          stashed = undefined;
        });
        return stashed;
      },
    };
    items.push(item);
    outcomes.push({
      id: result.id,
      status: frozen ? 'frozen' : 'unchanged',
      actedBy: [],
      trail: [],
      ...(frozen?.stashId ? { stashId: frozen.stashId } : {}),
    });
  }
  const changedThisRun = new Set<number>();

  for (const stage of stages) {
    stats[stage.name] ??= emptyStats();
    const s = stats[stage.name] as StageStats;
    s.runs++;
    const eligible: number[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as (typeof items)[number];
      const outcome = outcomes[i] as ResultOutcome;
      const decline = (reason: DeclineReason) => {
        bump(s.declined, reason);
        outcome.trail.push({ stage: stage.name, outcome: reason });
      };
      if (item.override?.exempt) decline('exempt_tool');
      else if (item.frozen && !stage.actsOnPrefix) continue;
      else if (
        item.result.position < ctx.cachedPrefix &&
        !stage.actsOnPrefix &&
        !(stage.pure && ctx.coldCache)
      )
        decline('cached_prefix');
      else if (stage.lossy && item.cameMarked()) decline('already_marked');
      else eligible.push(i);
    }
    if (eligible.length === 0) continue;
    let decisions: (import('./types.js').Decision | Error)[];
    try {
      decisions = await stage.run(
        eligible.map((i) => items[i] as StageItem),
        ctx,
        items,
      );
    } catch (err) {
      decisions = eligible.map(() => (err instanceof Error ? err : new Error(String(err))));
    }
    for (let k = 0; k < eligible.length; k++) {
      const i = eligible[k] as number;
      const item = items[i] as (typeof items)[number];
      const outcome = outcomes[i] as ResultOutcome;
      const decision = decisions[k] ?? new Error(`stage ${stage.name} returned no decision`);
      const revert = (cause: RevertCause) => {
        bump(s.reverted, cause);
        outcome.trail.push({ stage: stage.name, outcome: `reverted:${cause}` });
      };
      if (decision instanceof Error) {
        revert('threw');
        continue;
      }
      if (decision.action === 'declined') {
        bump(s.declined, decision.reason);
        outcome.trail.push({ stage: stage.name, outcome: decision.reason });
        continue;
      }
      // Sizes are measured once per content (a 15 MB original is not re-measured by every stage).
      const beforeBytes = bytesOf(item);
      const afterBytes = contentBytes(decision.content);
      if (afterBytes > beforeBytes) {
        revert('grew');
        continue;
      }
      if (stage.lossy && !decision.stashId && decision.fallback !== 'stash_failed') {
        revert('lossy_without_stash');
        continue;
      }
      const before = item.content;
      item.content = decision.content;
      item.lossyActed ||= stage.lossy;
      s.acted++;
      if (decision.fallback) s.fallbacks.stash_failed = (s.fallbacks.stash_failed ?? 0) + 1;
      item.bytes = afterBytes;
      s.tokensBefore += statsCount(before, beforeBytes);
      s.tokensAfter += statsCount(decision.content, afterBytes);
      outcome.actedBy.push(stage.name);
      outcome.trail.push({ stage: stage.name, outcome: decision.fallback ? 'stash_failed' : 'acted' });
      if (decision.stashId) outcome.stashId = decision.stashId;
      outcome.status = 'changed';
      changedThisRun.add(i);
    }
  }

  // Freeze what was decided now, so later turns replay the same bytes whatever the config.
  if (ctx.frozen) {
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as (typeof items)[number];
      const outcome = outcomes[i] as ResultOutcome;
      const inTail = item.result.position >= ctx.cachedPrefix;
      if (item.frozen && !changedThisRun.has(i)) continue;
      if (!inTail && !changedThisRun.has(i)) continue;
      const entry =
        changedThisRun.has(i) || item.frozen
          ? {
              content: item.content,
              stage: outcome.actedBy.at(-1),
              ...(outcome.stashId ? { stashId: outcome.stashId } : {}),
            }
          : {};
      try {
        await ctx.frozen.set(item.result.id, item.originalHash(), entry);
      } catch {
        freezeFailures++;
      }
    }
  }

  return {
    results: items.map((item) =>
      item.content === item.result.content ? item.result : { ...item.result, content: item.content },
    ),
    outcomes,
    stats,
    frozenReplayed,
    freezeFailures,
  };
}

/**
 * Adds the counters of `b` into `a` (for totals over many runs).
 *
 * @example
 * const totals = {};
 * for (const run of runs) addStats(totals, run.stats);
 */
export function addStats(
  a: Partial<Record<StageName, StageStats>>,
  b: Partial<Record<StageName, StageStats>>,
): void {
  for (const [name, sb] of Object.entries(b) as [StageName, StageStats][]) {
    a[name] ??= emptyStats();
    const sa = a[name] as StageStats;
    sa.runs += sb.runs;
    sa.acted += sb.acted;
    sa.tokensBefore += sb.tokensBefore;
    sa.tokensAfter += sb.tokensAfter;
    for (const [k, v] of Object.entries(sb.declined))
      sa.declined[k as DeclineReason] = (sa.declined[k as DeclineReason] ?? 0) + (v ?? 0);
    for (const [k, v] of Object.entries(sb.reverted))
      sa.reverted[k as RevertCause] = (sa.reverted[k as RevertCause] ?? 0) + (v ?? 0);
    if (sb.fallbacks.stash_failed)
      sa.fallbacks.stash_failed = (sa.fallbacks.stash_failed ?? 0) + sb.fallbacks.stash_failed;
  }
}
