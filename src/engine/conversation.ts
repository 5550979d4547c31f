import { collapseBudget } from '../collapse/index.js';
import type { Store } from '../store/index.js';
import { callKeyOf, lookupModelLimit, type ToolCallInput, type ToolResult } from '../text/index.js';
import { memoTokenizer, type Tokenizer } from '../text/tokenizers/index.js';
import { Calibration } from './calibration.js';
import { clearDueInputs } from './clear-due-inputs.js';
import { replayClearedInputs } from './clear-inputs.js';
import { engineConfigOf, type ResolvedEngineConfig, stageOptions, type WithEngineConfig } from './config.js';
import { type FitDeps, fitWindow, type WindowFit, type WindowRequest } from './fit-window.js';
import { FrozenDecisions } from './frozen.js';
import { cachePrices, expectedRemaining, type RequestEconomics, SavingsBank } from './rewrite-pays.js';
import { runStages, type StagesRun } from './runner.js';
import { type BudgetPins, pinnedTools, toolOverride } from './tool-overrides.js';

/** Past this idle time the provider's prompt cache is assumed cold (Anthropic's default TTL). */
export const CACHE_TTL_MS = 5 * 60 * 1000;

/** What a {@link ConversationEngine} takes: its engine config (`config`) and these. */
export type ConversationOptions = ConversationSettings & WithEngineConfig<ResolvedEngineConfig>;

/** A conversation's settings besides its engine config. */
export interface ConversationSettings {
  /** Where originals are stashed and decisions frozen. */
  store: Store;
  /**
   * The conversation's id: decisions are frozen under it and replayed on later turns (after a
   * restart too). Without one nothing is frozen: a one-shot run (`spillway collapse`).
   */
  session?: string;
  /** Counts the tokens the statistics report (default: the config's tokenizer). */
  statsTokenizer?: Tokenizer;
  /** Idle time after which the provider's cache counts as cold (default {@link CACHE_TTL_MS}). */
  cacheTtlMs?: number;
  /** Factors learned in other conversations, used until this one's first answer. */
  calibrationPrior?: Calibration;
}

/** One request of the conversation, as the engine needs to see it. */
export interface TurnInput {
  /** Its tool results, in order, each with its position (message index). */
  results: readonly ToolResult[];
  /** How many messages (or input items) the request holds: where the next turn's cache ends. */
  messageCount: number;
  /** The request continues server-side state (Responses `previous_response_id`): no local prefix. */
  continuesServerState?: boolean;
  /** The model, for `maxFrac` budgets (ignored when `modelWindow` is given). */
  model?: string;
  /** The model's context window in tokens, when known. */
  modelWindow?: number;
  /** False for a request that does not advance the conversation (`count_tokens`). Default true. */
  advance?: boolean;
  /** The time of the request (default: now); decides whether the cache went cold. */
  now?: number;
  /**
   * The turn's decisions are written to the store once this settles (default: right after the
   * turn). The proxy passes the end of the request's answer: the write then never delays it.
   */
  writeDecisionsAfter?: PromiseLike<unknown>;
  /** Collapse budgets this request pins (see pinnedTools); decisions already frozen stay. */
  budgets?: BudgetPins;
  /**
   * Its tool calls' arguments, in order: cleared inputs are replayed, and `mask` with `inputs`
   * clears old large ones in its batches.
   */
  calls?: readonly ToolCallInput[];
  /**
   * The request's tokens other than tool results (messages, calls' arguments) from message
   * `position` to its end, estimated: what a rewrite of the prefix there writes again besides
   * the results. Default 0 (only the results are weighed).
   */
  otherTokensFrom?: (position: number) => number;
}

/** What one turn did: the stages' run, and the cache policy it ran under. */
export interface TurnOutcome extends StagesRun {
  /** Results with a position below this were in the provider's cached prefix. */
  cachedPrefix: number;
  /** The cache was provably cold: pure stages could act on the prefix. */
  coldCache: boolean;
  /** New arguments for calls whose old large inputs are cleared (by index into `calls`). */
  inputs: Map<number, string>;
  /** How many of them were cleared on this turn (the rest replay earlier turns' decisions). */
  inputsCleared: number;
  /**
   * Rewrites of the prefix as this conversation weighs them (see rewrite-pays.ts): what spillway
   * has saved it so far (tokens x USD per million tokens) and the requests it expects still.
   */
  rewrites: { banked: number; remaining: number };
}

/**
 * The engine of one conversation, and the one front door to the stages: it owns the
 * cached-prefix boundary and the cold-cache rule, the frozen decisions, stashing (through the
 * runner and the store's one stash function), budgets and statistics. The proxy keeps one per
 * session; the replay one per transcript; `spillway collapse` and session pruning use one for
 * a single run.
 *
 * The boundary is the previous turn's message count and never shrinks, except when the
 * conversation itself got shorter (compacted or rewound): its old prefix is then no longer
 * the provider's, so the boundary starts again. Everything seen before keeps its frozen
 * decision either way.
 *
 * @example
 * const conversation = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'sess-1' });
 * const turn = await conversation.turn({ results, messageCount: 12, model: 'claude-sonnet-4-5' });
 * turn.results; // same order, new content where a stage acted
 */
export class ConversationEngine {
  readonly config: ResolvedEngineConfig;
  readonly session: string | undefined;
  readonly #store: Store;
  readonly #frozen: FrozenDecisions | undefined;
  readonly #statsTokenizer: Tokenizer;
  readonly #cacheTtlMs: number;
  /** Provider count / spillway's count, per model, from the usage of this conversation's answers. */
  readonly calibration: Calibration;
  /** The config's tokenizer with a memory: the guard weighs the same results turn after turn. */
  readonly count: (text: string) => number;
  readonly #countUpTo: (text: string, limit: number) => number;
  #boundary = 0;
  #lastSeen: number | undefined;
  readonly #bank = new SavingsBank();

  constructor(options: ConversationOptions) {
    this.config = engineConfigOf<ResolvedEngineConfig>(options);
    this.session = options.session;
    this.#store = options.store;
    this.#frozen =
      options.session === undefined ? undefined : new FrozenDecisions(options.store, options.session);
    const memo = memoTokenizer(this.config.tokenizer);
    // Every turn counts every result of the conversation for its statistics: a result is
    // counted once, then remembered by its hash.
    this.#statsTokenizer = options.statsTokenizer ? memoTokenizer(options.statsTokenizer) : memo;
    this.#cacheTtlMs = options.cacheTtlMs ?? CACHE_TTL_MS;
    this.calibration = new Calibration(options.calibrationPrior);
    this.count = (text) => memo.count(text);
    this.#countUpTo = memo.countUpTo;
  }

  /** @deprecated The former name of {@link ConversationEngine.config}. */
  get pipeline(): ResolvedEngineConfig {
    return this.config;
  }

  /** The message count results must reach to be decided anew: the previous turn's end. */
  get boundary(): number {
    return this.#boundary;
  }

  /** True when other proxies share the store (see {@link Store.shared}). */
  get shared(): boolean {
    return this.#store.shared === true;
  }

  /** When the conversation was last seen (undefined before its first turn). */
  get lastSeen(): number | undefined {
    return this.#lastSeen;
  }

  /**
   * The collapse budget a tool's results get in this conversation (undefined when the config
   * has no collapse). The stage, the replay's checks and session pruning all use this.
   *
   * A file read kept whole at arrival (`keepReads`) has the read limit as its budget.
   *
   * @example
   * conversation.budgetFor({ tool: 'Bash' }, 200_000); // 2000 with balanced
   */
  budgetFor(result: Pick<ToolResult, 'tool' | 'input'>, modelWindow?: number): number | undefined {
    const spec = stageOptions(this.config, 'collapse');
    if (!spec) return undefined;
    const isRead = spec.keepReads === true && callKeyOf(result, spec.readTools)?.kind === 'read';
    return collapseBudget(spec, {
      modelWindow,
      toolBudget: toolOverride(this.config.tools, result.tool)?.maxTokens,
      isRead,
    });
  }

  /**
   * Makes the request fit its window by its tool results alone (see {@link fitWindow}): the
   * oldest results outside the protected recent ones are masked, then the largest are
   * collapsed harder; each change is stashed and frozen. Unchanged when that cannot fit.
   */
  async fitWindow(
    originals: readonly ToolResult[],
    results: readonly ToolResult[],
    request: WindowRequest,
  ): Promise<WindowFit> {
    const deps: FitDeps = {
      store: this.#store,
      tokenizer: this.config.tokenizer,
      frozen: this.#frozen,
      collapse: stageOptions(this.config, 'collapse'),
      isExempt: (tool) => this.isExempt(tool),
      countUpTo: this.#countUpTo,
    };
    return fitWindow(deps, originals, results, request);
  }

  /** Resolves when the decisions of the turns so far are in the store (or their writes failed). */
  async flush(): Promise<void> {
    await this.#frozen?.flush();
  }

  /** True when a tool is exempt from every stage. */
  isExempt(tool: string): boolean {
    return toolOverride(this.config.tools, tool)?.exempt === true;
  }

  /**
   * Runs one request's tool results through the stages under the conversation's cache
   * policy, and moves the boundary to this request's end (unless `advance` is false). A
   * failure of the run still counts the turn as seen, and rejects: the caller fails open.
   */
  async turn(input: TurnInput): Promise<TurnOutcome> {
    const now = input.now ?? Date.now();
    const advance = input.advance ?? true;
    const serverState = input.continuesServerState === true;
    if (this.#store.shared) await this.#catchUp();
    const shrank = !serverState && input.messageCount < this.#boundary;
    if (shrank && advance) this.#boundary = 0;
    const coldCache = this.#lastSeen === undefined || shrank || now - this.#lastSeen > this.#cacheTtlMs;
    const cachedPrefix = serverState || shrank ? 0 : this.#boundary;
    const economics: RequestEconomics = {
      ...cachePrices(input.model, this.config.prices),
      remaining: expectedRemaining(input.results),
      cold: coldCache,
      cachedPrefix,
      otherTokensFrom: input.otherTokensFrom ?? (() => 0),
      banked: () => this.#bank.total,
      spend: (cost) => this.#bank.spend(cost),
    };
    try {
      const run =
        input.results.length === 0
          ? emptyRun()
          : await runStages(
              input.results,
              this.config.stages,
              {
                store: this.#store,
                tokenizer: this.config.tokenizer,
                statsTokenizer: this.#statsTokenizer,
                cachedPrefix,
                coldCache,
                economics,
                ...(this.#frozen ? { frozen: this.#frozen } : {}),
                ...(input.writeDecisionsAfter ? { writeDecisionsAfter: input.writeDecisionsAfter } : {}),
                ...windowOf(input),
              },
              { tools: pinnedTools(this.config.tools, input.budgets) },
            );
      const calls = input.calls ?? [];
      const inputs = await replayClearedInputs(this.#frozen, calls);
      const inputsCleared = await clearDueInputs(
        {
          store: this.#store,
          frozen: this.#frozen,
          mask: stageOptions(this.config, 'mask'),
          isExempt: (tool) => this.isExempt(tool),
          count: this.count,
        },
        { calls, inputs, economics, run, after: input.writeDecisionsAfter },
      );
      this.#bank.add(
        run.outcomes.map((o, i) => ({
          saved: o.tokensBefore - o.tokensAfter,
          inPrefix: (input.results[i]?.position ?? 0) < cachedPrefix,
        })),
        economics,
      );
      const rewrites = { banked: this.#bank.total, remaining: economics.remaining };
      return { ...run, cachedPrefix, coldCache, inputs, inputsCleared, rewrites };
    } finally {
      this.#lastSeen = now;
      if (advance && !serverState) this.#boundary = Math.max(this.#boundary, input.messageCount);
      if (this.#store.shared && advance)
        this.#frozen?.noteTurn({ boundary: this.#boundary, seen: now }, input.writeDecisionsAfter);
    }
  }

  /**
   * In a fleet (a store other proxies write too), the turns another proxy served: their
   * decisions, and where they left the boundary and the cache's clock, so this proxy sends
   * the same prefix they did.
   */
  async #catchUp(): Promise<void> {
    const mark = await this.#frozen?.refresh();
    if (!mark || (this.#lastSeen !== undefined && mark.seen <= this.#lastSeen)) return;
    this.#boundary = mark.boundary;
    this.#lastSeen = mark.seen;
  }
}

function windowOf(input: TurnInput): { modelWindow?: number } {
  if (input.modelWindow !== undefined) return { modelWindow: input.modelWindow };
  const known = input.model ? lookupModelLimit(input.model) : undefined;
  return known?.found ? { modelWindow: known.limit } : {};
}

function emptyRun(): StagesRun {
  return {
    results: [],
    outcomes: [],
    stats: {},
    frozenReplayed: 0,
    freezeFailures: 0,
    tokensBefore: 0,
    tokensAfter: 0,
  };
}
