import {
  addStats,
  ConversationEngine,
  engineConfigOf,
  type ResolvedEngineConfig,
  type ResultOutcome,
  requestFigures,
  type StageName,
  type StageStats,
  type TurnOutcome,
} from '../engine/index.js';
import type { InputUsage } from '../formats/index.js';
import { MemoryStore, recallAll, type Store } from '../store/index.js';
import {
  type Content,
  contentText,
  cutNoteIds,
  inputLimit,
  isTextBlock,
  lookupModelLimit,
  markerIds,
  memoTokenizer,
  shortHash,
  type Tokenizer,
  type ToolResult,
  textOf,
} from '../text/index.js';
import { needlesKept, needlesOf } from './needles.js';
import { guardWithInputs, type InputCounters, ReplayCalls } from './replay-inputs.js';
import type { ReplayOptions } from './replay-options.js';
import { learnEstimate, type WindowCounters } from './replay-window.js';
import type { Conversation } from './transcript.js';

export interface ResultRecord {
  id: string;
  tool: string;
  turn: number;
  tokensBefore: number;
  tokensAfter: number;
  actedBy: StageName[];
  before: string;
  after: string;
  /** Lines the before and after have in common at their start, left out of the excerpts. */
  sameLines?: number;
}

export interface ConversationReplay extends WindowCounters, InputCounters {
  id: string;
  turns: number;
  toolResults: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Results over their budget after the stages (must be 0). */
  violations: { id: string; tool: string; tokens: number; budget: number }[];
  /** Results in the cached prefix whose bytes differ from the previous turn (must be 0). */
  prefixChanges: { turn: number; id: string; tool: string }[];
  /** Prefix rewrites made on purpose by mask and supersede, in batches. */
  maskedInPrefix: number;
  /**
   * Results that came already shortened or annotated at the source (a client hook's collapse
   * or note, `spillway run`): what capture at the source did in this transcript.
   */
  atSource: number;
  /**
   * Lines that matter (errors, failures, exceptions, summaries, ...; and the last five lines) of
   * the results shrunk at arrival, and how many of them are still visible after.
   */
  needles: number;
  needlesKept: number;
  /**
   * Tool-result tokens of each request, before and after; whether its cached prefix was
   * rewritten; whether it was over the input limit of its window, before and after (the window
   * guard acted when `guarded`).
   */
  perTurn: {
    before: number;
    after: number;
    /** Tool-result tokens taken out inside the cached prefix (the guard's included) and new. */
    savedInPrefix: number;
    savedNew: number;
    /** Tokens of the request's other text (0 where the format does not record it). */
    other: number;
    /** Of them, tool-call arguments cleared (so far, all in the cached prefix). */
    otherSaved: number;
    prefixRewritten: boolean;
    /** The earliest turn whose result this request rewrote in the cached prefix (when it did). */
    rewriteFrom?: number;
    overBefore: boolean;
    overAfter: boolean;
    guarded: boolean;
  }[];
  stats: Partial<Record<StageName, StageStats>>;
  results: ResultRecord[];
  /** The transcript's model and, per turn, the input its provider billed (where recorded). */
  model?: string;
  providerUsage?: (InputUsage | undefined)[];
}

/**
 * Replays one conversation as the proxy would see it: turn k's request holds every result of
 * turns 0..k, the results of earlier turns form the cached prefix, and decisions are frozen
 * between turns. Checks, at every turn, that no result is over its budget, that every marker
 * recalls its exact original, and that the cached prefix is byte-identical to the previous
 * turn's rewrite.
 *
 * @example
 * const r = await replayConversation(conversation, { config: resolveEngineConfig({ preset: 'balanced' }) });
 * r.prefixChanges.length; // 0
 */
/** One engine for the transcript as the proxy keeps one per session (counts cached), its store and window. */
function replayEngine(conversation: Conversation, options: ReplayOptions) {
  const known = conversation.model ? lookupModelLimit(conversation.model) : undefined;
  const unbounded = { maxTotalBytes: Number.MAX_SAFE_INTEGER, maxSessionBytes: Number.MAX_SAFE_INTEGER };
  const store = options.store ?? new MemoryStore(unbounded);
  const session = `replay_${shortHash(conversation.id)}`;
  const config = engineConfigOf<ResolvedEngineConfig>(options);
  const statsTokenizer = memoTokenizer(config.tokenizer);
  const engine = new ConversationEngine({ config, store, session, statsTokenizer });
  return { engine, store, modelWindow: options.modelWindow ?? (known?.found ? known.limit : undefined) };
}

export async function replayConversation(
  conversation: Conversation,
  options: ReplayOptions,
): Promise<ConversationReplay> {
  const { engine, store, modelWindow } = replayEngine(conversation, options);
  const all: ToolResult[] = conversation.turns.flat();
  const replay = emptyReplay(conversation, all.length);
  const previous: Content[] = [];
  // The window guard sees what the transcript gives: the tool results (a request's other text is
  // not in every transcript format), against the window less room for the answer.
  const limit = modelWindow ? inputLimit(modelWindow) : undefined;
  // Tokens of each turn's other text (where the transcript records it), and their sum so far.
  const otherOf: number[] = [];
  let other = 0;
  let seen = 0;
  const calls = new ReplayCalls();
  for (let turn = 0; turn < conversation.turns.length; turn++) {
    seen += conversation.turns[turn]?.length ?? 0;
    const input = all.slice(0, seen);
    calls.add(conversation.turns[turn] ?? []);
    otherOf.push(engine.count(conversation.otherText?.[turn] ?? ''));
    // A transcript has no clock: the cache is cold on the first turn only.
    const run = await engine.turn({
      otherTokensFrom: (position) => sum(otherOf.slice(Math.max(0, position))),
      results: input,
      messageCount: turn + 1,
      now: 0,
      ...(modelWindow ? { modelWindow } : {}),
      calls: calls.calls,
    });
    addStats(replay.stats, run.stats);
    other = sum(otherOf);
    learnEstimate(engine, replay, conversation, turn, run.tokensBefore + other);
    const { guarded, otherSaved, inputsFrom } = await guardWithInputs(engine, replay, calls, {
      input,
      run,
      turn,
      limit,
      other,
      store,
    });
    const finals = guarded?.results ?? run.results;
    const rewrite = await takeTurnResults(
      replay,
      { engine, store, modelWindow, turn },
      input,
      run,
      finals,
      previous,
    );
    const prefixRewritten = rewrite !== undefined || inputsFrom !== undefined;
    const rewriteFrom = rewrite === undefined ? inputsFrom : Math.min(rewrite, inputsFrom ?? rewrite);
    const after = guarded?.after ?? run.tokensAfter;
    const figures = requestFigures(run, input, replay.id, new Date(0));
    replay.perTurn.push({
      before: run.tokensBefore,
      after,
      // What the window guard took out was in the prefix: it masks and collapses old results.
      savedInPrefix: figures.savedInPrefix + (run.tokensAfter - after),
      savedNew: figures.savedNew,
      other,
      otherSaved,
      prefixRewritten,
      ...(rewriteFrom !== undefined ? { rewriteFrom } : {}),
      overBefore: limit !== undefined && run.tokensBefore + other > limit,
      overAfter: limit !== undefined && after + other - otherSaved > limit,
      guarded: guarded !== undefined,
    });
    options.onTurn?.(turn + 1, conversation.turns.length);
  }
  return replay;
}

/**
 * Goes through a turn's results as they go out: a result in the cached prefix that changed is a
 * rewrite (on purpose by mask, supersede and the guard, counted; else a prefix change, a
 * failed check), a new one is checked. Returns the earliest turn whose result was rewritten.
 */
async function takeTurnResults(
  replay: ConversationReplay,
  at: { engine: ConversationEngine; store: Store; modelWindow: number | undefined; turn: number },
  input: readonly ToolResult[],
  run: TurnOutcome,
  finals: readonly ToolResult[],
  previous: Content[],
): Promise<number | undefined> {
  let rewriteFrom: number | undefined;
  for (let i = 0; i < finals.length; i++) {
    const original = input[i] as ToolResult;
    const final = (finals[i] as ToolResult).content;
    const outcome = run.outcomes[i];
    if (original.position < at.turn) {
      if (contentText(previous[i] as Content) !== contentText(final)) {
        rewriteFrom = Math.min(rewriteFrom ?? original.position, original.position);
        // mask, supersede and the window guard rewrite the prefix on purpose, in batches.
        if (finals[i] !== run.results[i] || outcome?.actedBy.some((s) => s === 'mask' || s === 'supersede'))
          replay.maskedInPrefix++;
        else replay.prefixChanges.push({ turn: at.turn, id: original.id, tool: original.tool });
      }
    } else {
      await checkNewResult(replay, at, original, final, outcome);
    }
    previous[i] = final;
  }
  return rewriteFrom;
}

/** A replay with nothing counted yet. */
function emptyReplay(conversation: Conversation, toolResults: number): ConversationReplay {
  return {
    id: conversation.id,
    turns: conversation.turns.length,
    toolResults,
    tokensBefore: 0,
    tokensAfter: 0,
    violations: [],
    recallFailures: [],
    prefixChanges: [],
    maskedInPrefix: 0,
    atSource: 0,
    inputsCleared: 0,
    guard: { events: 0, masked: 0, collapsed: 0, cleared: 0, unfit: 0 },
    estimate: { samples: 0, rawErrors: 0, calibrated: 0, calibratedErrors: 0 },
    needles: 0,
    needlesKept: 0,
    perTurn: [],
    stats: {},
    results: [],
    ...(conversation.model ? { model: conversation.model } : {}),
    ...(conversation.providerUsage ? { providerUsage: conversation.providerUsage } : {}),
  };
}

/** Records a result that arrived this turn, and checks its budget and every id its markers name. */
async function checkNewResult(
  replay: ConversationReplay,
  at: { engine: ConversationEngine; store: Store; modelWindow: number | undefined; turn: number },
  original: ToolResult,
  final: Content,
  outcome: ResultOutcome | undefined,
): Promise<void> {
  const finalText = contentText(final);
  const arrived = contentText(original.content);
  if (cutNoteIds(arrived).length > 0 || markerIds(arrived).length > 0) replay.atSource++;
  const { tokensBefore = 0, tokensAfter = 0 } = outcome ?? {};
  replay.tokensBefore += tokensBefore;
  replay.tokensAfter += tokensAfter;
  replay.results.push({
    id: original.id,
    tool: original.tool,
    turn: at.turn,
    tokensBefore,
    tokensAfter,
    actedBy: outcome?.actedBy ?? [],
    before: arrived,
    after: finalText,
  });
  if (tokensAfter < tokensBefore) {
    const needles = needlesOf(arrived);
    replay.needles += needles.length;
    replay.needlesKept += needlesKept(needles, finalText);
  }
  const budget = at.engine.budgetFor(original, at.modelWindow);
  // Beside images and documents only the text is budgeted: count the text blocks.
  const textTokens =
    textOf(original.content) !== null ? tokensAfter : textBlockTokens(final, at.engine.config.tokenizer);
  if (
    budget !== undefined &&
    !at.engine.isExempt(original.tool) &&
    !original.isExpandOutput &&
    textTokens > budget
  )
    replay.violations.push({ id: original.id, tool: original.tool, tokens: textTokens, budget });
  // A marker recalls the whole original, or (beside rich blocks) the text block it stands in.
  const originals = [arrived, ...textBlocksOf(original.content)].map((t) => Buffer.from(t, 'utf8'));
  // Markers that arrived with the result (capture at the source) name the user's store: not checked.
  const arrivedIds = new Set(markerIds(arrived));
  for (const markerId of markerIds(finalText)) {
    if (arrivedIds.has(markerId)) continue;
    const body = await recallAll(markerId, { store: at.store }).catch(() => null);
    if (!body || !originals.some((o) => o.equals(body)))
      replay.recallFailures.push({ id: original.id, tool: original.tool, markerId });
  }
}

const textBlocksOf = (content: Content): string[] =>
  typeof content === 'string' ? [] : content.filter(isTextBlock).map((b) => b.text);
const textBlockTokens = (content: Content, tokenizer: Tokenizer): number =>
  textBlocksOf(content).reduce((n, text) => n + tokenizer.count(text), 0);

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
