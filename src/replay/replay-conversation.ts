import { createHash } from 'node:crypto';
import { collapseBudget, type ResolvedPipeline } from '../pipeline/config.js';
import { FrozenDecisions } from '../pipeline/frozen.js';
import { addStats, runPipeline, type StageStats, toolOverride } from '../pipeline/runner.js';
import type { StageName, ToolResult } from '../pipeline/types.js';
import { MemoryStore } from '../store/memory-store.js';
import { recallAll } from '../store/recall.js';
import type { Store } from '../store/store.js';
import { type Content, contentText, textOf } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';
import { lookupModelLimit } from '../text/model-limit.js';
import type { Conversation } from './transcript.js';

export interface ReplayOptions {
  pipeline: ResolvedPipeline;
  /** Where stashes and frozen decisions go (default: a fresh memory store). */
  store?: Store;
  /** The model's context window, for maxFrac budgets and the over-window counts. */
  modelWindow?: number;
  /** Called after each turn, for progress. */
  onTurn?: (turn: number, turns: number) => void;
}

export interface ResultRecord {
  id: string;
  tool: string;
  turn: number;
  tokensBefore: number;
  tokensAfter: number;
  actedBy: StageName[];
  before: string;
  after: string;
}

export interface ConversationReplay {
  id: string;
  turns: number;
  toolResults: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Results over their budget after the pipeline (must be 0). */
  violations: { id: string; tokens: number; budget: number }[];
  /** Markers whose id does not recall the exact original (must be 0). */
  recallFailures: { id: string; markerId: string }[];
  /** Results in the cached prefix whose bytes differ from the previous turn (must be 0). */
  prefixChanges: { turn: number; id: string }[];
  /** Prefix rewrites made on purpose by mask, in batches. */
  maskedInPrefix: number;
  /** Tool-result tokens of each request, before and after, and whether its cached prefix was rewritten. */
  perTurn: { before: number; after: number; prefixRewritten: boolean }[];
  stats: Partial<Record<StageName, StageStats>>;
  results: ResultRecord[];
}

/**
 * Replays one conversation as the proxy would see it: turn k's request holds every result of
 * turns 0..k, the results of earlier turns form the cached prefix, and decisions are frozen
 * between turns. Checks, at every turn, that no result is over its budget, that every marker
 * recalls its exact original, and that the cached prefix is byte-identical to the previous
 * turn's rewrite.
 *
 * @example
 * const r = await replayConversation(conversation, { pipeline: resolvePipeline({ preset: 'balanced' }) });
 * r.prefixChanges.length; // 0
 */
export async function replayConversation(
  conversation: Conversation,
  options: ReplayOptions,
): Promise<ConversationReplay> {
  const { pipeline } = options;
  const tokenizer = pipeline.tokenizer;
  // maxFrac budgets and window counts use the transcript's model when the table knows it.
  const known = conversation.model ? lookupModelLimit(conversation.model) : undefined;
  const modelWindow = options.modelWindow ?? (known?.found ? known.limit : undefined);
  const store =
    options.store ??
    new MemoryStore({ maxTotalBytes: Number.MAX_SAFE_INTEGER, maxSessionBytes: Number.MAX_SAFE_INTEGER });
  const session = `replay_${createHash('sha256').update(conversation.id).digest('base64url').slice(0, 22)}`;
  const frozen = new FrozenDecisions(store, session);
  const all: ToolResult[] = conversation.turns.flatMap((turn, position) =>
    turn.map((r) => ({
      id: r.id,
      tool: r.tool,
      content: r.content,
      position,
      ...(r.isExpandOutput ? { isExpandOutput: true } : {}),
      ...(r.isError ? { isError: true } : {}),
    })),
  );
  const replay: ConversationReplay = {
    id: conversation.id,
    turns: conversation.turns.length,
    toolResults: all.length,
    tokensBefore: 0,
    tokensAfter: 0,
    violations: [],
    recallFailures: [],
    prefixChanges: [],
    maskedInPrefix: 0,
    perTurn: [],
    stats: {},
    results: [],
  };
  const countCache = new Map<string, number>();
  const count = (text: string) => {
    let n = countCache.get(text);
    if (n === undefined) {
      n = tokenizer.count(text);
      if (countCache.size > 10_000) countCache.clear();
      countCache.set(text, n);
    }
    return n;
  };
  const previous: Content[] = [];
  let seen = 0;
  for (let turn = 0; turn < conversation.turns.length; turn++) {
    seen += conversation.turns[turn]?.length ?? 0;
    const input = all.slice(0, seen);
    const run = await runPipeline(
      input,
      pipeline.stages,
      {
        store,
        tokenizer,
        cachedPrefix: turn,
        coldCache: turn === 0,
        frozen,
        ...(modelWindow ? { modelWindow } : {}),
      },
      { tools: pipeline.tools },
    );
    addStats(replay.stats, run.stats);
    let before = 0;
    let after = 0;
    let prefixRewritten = false;
    for (let i = 0; i < run.results.length; i++) {
      const original = input[i] as ToolResult;
      const final = (run.results[i] as ToolResult).content;
      const outcome = run.outcomes[i];
      const finalText = contentText(final);
      before += count(contentText(original.content));
      after += count(finalText);
      if (original.position < turn) {
        if (contentText(previous[i] as Content) !== finalText) {
          prefixRewritten = true;
          if (outcome?.actedBy.includes('mask')) replay.maskedInPrefix++;
          else replay.prefixChanges.push({ turn, id: original.id });
        }
      } else {
        // A new result: check its budget and every id its markers name.
        const tokensBefore = count(contentText(original.content));
        const tokensAfter = count(finalText);
        replay.tokensBefore += tokensBefore;
        replay.tokensAfter += tokensAfter;
        replay.results.push({
          id: original.id,
          tool: original.tool,
          turn,
          tokensBefore,
          tokensAfter,
          actedBy: outcome?.actedBy ?? [],
          before: contentText(original.content),
          after: finalText,
        });
        const budget = collapseBudget(pipeline, original.tool);
        const exempt = toolOverride(pipeline.tools, original.tool)?.exempt;
        if (
          budget !== undefined &&
          !exempt &&
          !original.isExpandOutput &&
          textOf(original.content) !== null &&
          tokensAfter > budget
        ) {
          // The character floor may exceed a budget under ~60 tokens by design; anything else is a violation.
          replay.violations.push({ id: original.id, tokens: tokensAfter, budget });
        }
        for (const markerId of markerIds(finalText)) {
          const body = await recallAll(markerId, { store }).catch(() => null);
          const expected = Buffer.from(contentText(original.content), 'utf8');
          if (!body?.equals(expected)) replay.recallFailures.push({ id: original.id, markerId });
        }
      }
      previous[i] = final;
    }
    replay.perTurn.push({ before, after, prefixRewritten });
    options.onTurn?.(turn + 1, conversation.turns.length);
  }
  return replay;
}
