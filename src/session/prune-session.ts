import { type CollapseOptions, CollapseOptionsSchema, collapseContent } from '../collapse/index.js';
import { parseConfig } from '../config-schema.js';
import { ConversationEngine, type ResolvedEngineConfig } from '../engine/index.js';
import { StashBatch, type Store, stash } from '../store/index.js';
import {
  type Content,
  measureContent,
  type PruneConfig,
  pruneContent,
  resolvePruneConfig,
  stashId,
} from '../text/index.js';
import { getTokenizer, type TokenizerName } from '../text/tokenizers/index.js';
import { isToolData, type ToolData, toolResultOf } from './events.js';
import type { Session } from './session.js';

/** Shrinks one tool result's content, or says null (leave it). */
export type Pruner = (content: Content, result: ToolData) => Content | null | Promise<Content | null>;

export interface PruneSessionOptions {
  /** Budgets for the default pruner (pruneContent). */
  config?: Partial<PruneConfig>;
  /** With a store, the default pruner stashes the removed middle and its marker names the id. */
  store?: Store;
  /** The newest this many tool results are never pruned. */
  protectRecent?: number;
  /** A pass that would save fewer code points than this does nothing. */
  minSaved?: number;
  /** Any other way to shrink a result (collapse, for instance: see {@link collapsePruner}). */
  pruner?: Pruner;
  /** Say what would be replaced (with the seqs the replacements would get), change nothing. */
  dryRun?: boolean;
}

export interface PrunedResult {
  originalSeq: number;
  replacementSeq: number;
  callId: string;
  charsBefore: number;
  charsAfter: number;
}

export interface PruneSessionResult {
  pruned: PrunedResult[];
  /** Code points saved in all. */
  saved: number;
}

/**
 * The default pruner: pruneContent, with the middle stashed when a store is given. A dry run
 * stashes nothing but sizes the marker as if it had (ids have a fixed length).
 *
 * @example
 * await pruneSession(session, { pruner: contentPruner({ thresholdChars: 4000 }, new FileStore()) });
 */
export function contentPruner(
  config: Partial<PruneConfig> = {},
  store?: Store | StashBatch,
  dryRun = false,
): Pruner {
  const resolved = resolvePruneConfig(config);
  return async (content) => {
    const first = pruneContent(content, resolved);
    if (!first || !store) return first?.content ?? null;
    const id = dryRun
      ? stashId(first.middle)
      : store instanceof StashBatch
        ? store.add(first.middle)
        : await stash(store, first.middle);
    return pruneContent(content, resolved, id)?.content ?? null;
  };
}

/**
 * A pruner that runs an engine config's stages on each result, with the runner's guarantees (a stage that
 * throws or grows a result is reverted, every lossy change stashes the original first, results
 * already marked are skipped). Nothing is frozen: the session's replacement event is the record.
 *
 * @example
 * await pruneSession(session, { pruner: enginePruner(resolveEngineConfig({ preset: 'safe' }), store) });
 */
export function enginePruner(config: ResolvedEngineConfig, store: Store): Pruner {
  const engine = new ConversationEngine({ config, store });
  return async (content, data) => {
    const input = { ...toolResultOf(data, 0), content };
    const turn = await engine.turn({ results: [input], messageCount: 0, advance: false });
    const out = turn.results[0];
    return out && out !== input ? out.content : null;
  };
}

/**
 * @deprecated Use `enginePruner` (the same function).
 *
 * @example
 * await pruneSession(session, { pruner: pipelinePruner(resolveEngineConfig(), store) });
 */
export const pipelinePruner: typeof enginePruner = enginePruner;

/**
 * A pruner that collapses results over their budget (the one collapse of one output, as the
 * engine's collapse stage makes it), each original stashed whole so its marker recalls it.
 *
 * @example
 * await pruneSession(session, { pruner: collapsePruner({ maxTokens: 2000 }, store) });
 */
export function collapsePruner(
  options: CollapseOptions & { tokenizer?: TokenizerName },
  store: Store,
): Pruner {
  const { tokenizer: name, ...given } = options;
  // Checked as a config's collapse stage is: a bad option is refused when the pruner is made.
  const collapse = parseConfig(CollapseOptionsSchema, given, 'collapse');
  const tokenizer = getTokenizer(name);
  return async (content, data) => {
    const { tool, input, isExpandOutput } = toolResultOf(data, 0);
    const out = await collapseContent(content, {
      ...collapse,
      store,
      tokenizer,
      tool,
      input,
      isExpandOutput,
    });
    return out.step === 'acted' ? out.content : null;
  };
}

/**
 * Prunes every over-budget tool result of one snapshot of the session's surface. Each
 * replacement keeps all of the event's data but its content, and shadows (points at) the event
 * it replaces. Returns the replacements that landed and the saving. When the session rejects a
 * replacement this throws, and the replacements made before it stay (they are on disk).
 * A second pass finds nothing to do.
 *
 * @example
 * const { pruned, saved } = await pruneSession(session, { config: { thresholdChars: 8192 }, protectRecent: 2 });
 */
export async function pruneSession(
  session: Session,
  options: PruneSessionOptions = {},
): Promise<PruneSessionResult> {
  // The default pruner's stashes are stored together, once, before the replacements that name them.
  const batch =
    options.store && !options.pruner && !options.dryRun ? new StashBatch(options.store) : undefined;
  const pruner = options.pruner ?? contentPruner(options.config, batch ?? options.store, options.dryRun);
  const snapshot = [...session.surface()];
  const tools = snapshot.map((node, index) => ({ node, index })).filter(({ node }) => isToolData(node.data));
  const candidates = tools.slice(0, Math.max(0, tools.length - (options.protectRecent ?? 0)));
  const plans: {
    index: number;
    seq: number;
    data: ToolData;
    content: Content;
    before: number;
    after: number;
  }[] = [];
  for (const { node, index } of candidates) {
    const data = node.data as ToolData;
    const content = await pruner(data.content, data);
    if (content === null) continue;
    const before = measureContent(data.content);
    const after = measureContent(content);
    if (after >= before) continue;
    plans.push({ index, seq: node.seq, data, content, before, after });
  }
  const total = plans.reduce((n, p) => n + p.before - p.after, 0);
  if (options.minSaved !== undefined && total < options.minSaved) return { pruned: [], saved: 0 };
  const pruned: PrunedResult[] = [];
  let saved = 0;
  const land = (plan: (typeof plans)[number], replacementSeq: number) => {
    pruned.push({
      originalSeq: plan.seq,
      replacementSeq,
      callId: plan.data.toolCallId,
      charsBefore: plan.before,
      charsAfter: plan.after,
    });
    saved += plan.before - plan.after;
  };
  if (options.dryRun) {
    for (const [k, plan] of plans.entries()) land(plan, session.events.length + k);
    return { pruned, saved };
  }
  await batch?.flush();
  // One node replaced by one: the snapshot's indexes stay valid through the pass. The whole pass
  // is one append; a replacement the session rejects ends it, those before it stay on disk.
  const landed = await session.replaceAll(
    plans.map((p) => ({ start: p.index, end: p.index + 1, data: { ...p.data, content: p.content } })),
  );
  for (const [k, event] of landed.entries()) land(plans[k] as (typeof plans)[number], event.seq);
  return { pruned, saved };
}
