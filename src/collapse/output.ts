import { toError } from '../errors.js';
import { askedTerms } from '../signals/index.js';
import { type Store, stashKey, stashOriginal } from '../store/index.js';
import {
  type Content,
  type ContentBlock,
  callKeyOf,
  contentBytes,
  decodeUtf8,
  originalOf,
  textOf,
  withText,
} from '../text/index.js';
import { getTokenizer, memoTokenizer, statsCount, type Tokenizer } from '../text/tokenizers/index.js';
import { collapseBlocks } from './blocks.js';
import type { OutputDecision } from './decision.js';
import {
  type CollapseOptions,
  collapseBudget,
  DEFAULT_COLLAPSE_MAX_TOKENS,
  DEFAULT_READ_MAX_TOKENS,
} from './options.js';
import { isOwnOutput, recordOwnOutput } from './own-outputs.js';
import { collapseText } from './text.js';

/**
 * The budget for a collapse made at the source (`spillway run`, the client hooks): under the
 * proxy's default 2,000 tokens with room for the frame a client puts around a shell output
 * (Codex's "Exit code ... Output:", Gemini CLI's tags, Claude Code's file line), so the proxy
 * leaves it as it is rather than collapsing spillway's own output again.
 */
export const SOURCE_MAX_TOKENS = DEFAULT_COLLAPSE_MAX_TOKENS - 200;

/** The call an output answers, as far as its collapse goes. */
export interface OutputCall {
  /** The tool that produced the output: a file read keeps its outline (see callKeyOf). */
  tool?: string;
  /** The arguments of the call: lines naming what it asked for are kept too. */
  input?: unknown;
  /** The words said before the call (see ToolResult.said): asked-for terms too. */
  said?: string;
  /** The output of spillway's own recall: kept whole. */
  isExpandOutput?: boolean;
  /** Words the call asked about, in place of those of `input` and `said`. */
  query?: readonly string[];
  /** The output is a file read whole, in place of what `tool` and `input` say. */
  read?: boolean;
}

/** Where the original of one output goes, and what counts its tokens. */
export interface OutputDeps {
  store: Store;
  tokenizer: Tokenizer;
  /** The original's recall id (its content hash), known before it is stored. */
  id: () => string;
  /** Stashes the original; called at most once, before a marker naming it is returned. */
  stash: () => Promise<unknown>;
}

/**
 * The collapse of one output, decided: its budget (the tool's own, `maxFrac` of the model's
 * window, `maxTokens`), what its call asked for, a file read kept whole under `keepReads`, a
 * text collapsed by {@link collapseText} or blocks by {@link collapseBlocks}; an original that
 * could not be stashed leaves the output whole (declined `stash_failed`). The engine's collapse
 * stage is this, per result; {@link collapseOutput} is this with the store's bookkeeping.
 *
 * @example
 * const d = await decideOutput(log, { maxTokens: 500 }, { tool: 'Bash' }, { store, tokenizer, id: () => stashId(log), stash: () => stash(store, log) });
 */
export async function decideOutput(
  content: Content,
  options: CollapseOptions,
  call: OutputCall & { toolBudget?: number | undefined; modelWindow?: number | undefined },
  deps: OutputDeps,
): Promise<OutputDecision> {
  const budget = collapseBudget(options, { modelWindow: call.modelWindow, toolBudget: call.toolBudget });
  const query = call.query ?? askedTerms(call.input, call.said);
  const read =
    call.read ?? callKeyOf({ tool: call.tool ?? '', input: call.input }, options.readTools)?.kind === 'read';
  const text = textOf(content);
  if (options.keepReads && call.toolBudget === undefined && text !== null && read) {
    const limit = options.readMaxTokens ?? DEFAULT_READ_MAX_TOKENS;
    if (deps.tokenizer.countUpTo(text, limit) <= limit) return { action: 'declined', reason: 'source_read' };
  }
  const o = { ...options, budget, isExpandOutput: call.isExpandOutput, query, outline: read };
  // Rich blocks, or several text blocks: each text block is shortened in its place, with its
  // fields (cache_control) intact, never merged into one.
  if (text === null || (typeof content !== 'string' && content.length > 1))
    return collapseBlocks(content as readonly ContentBlock[], o, deps);
  const { store } = deps;
  const out = await collapseText(text, o, {
    tokenizer: deps.tokenizer,
    id: deps.id,
    stash: deps.stash,
    pathOf: store.pathOf ? (id) => store.pathOf?.(stashKey(id)) : undefined,
  });
  if (out.action === 'declined') return out;
  // The original could not be stashed: the output goes whole, never cut where it could not be
  // recalled. Only the window guard, when a request would not fit at all, cuts without a stash.
  if (out.fallback)
    return { action: 'declined', reason: 'stash_failed', detail: { stashError: out.stashError ?? '' } };
  return {
    action: 'acted',
    content: withText(content, out.text),
    ...(out.id ? { stashId: out.id } : {}),
    detail: { window: out.window, tokenizerCalls: out.tokenizerCalls },
  };
}

/** What the door takes: the collapse's options, the call, and where the original goes. */
export interface CollapseOutputOptions extends CollapseOptions, OutputCall {
  store: Store;
  /** The budget in tokens; without it, the options' (`maxTokens`, else 2,000). */
  budget?: number;
  /** The tokenizer that counts the budget, or its name (default o200k). */
  tokenizer?: Tokenizer | string;
  /**
   * Count the tokens before and after (`tokensBefore`, `tokensAfter`): a count of the whole
   * output, which only a report needs (a hook or `spillway run` does not).
   */
  measure?: boolean;
}

/** What one collapse of one output did. */
export interface CollapsedOutput {
  /** What the model should see: the output itself when it fits, else the collapse with markers. */
  text: string;
  /**
   * `acted` when the text was shortened; otherwise why not (`below_max_tokens`,
   * `already_marked`: spillway's own output, `stash_failed`, ..., `reverted:threw`).
   */
  step: string;
  /** The recall id of the stashed original, when it was stashed. */
  id?: string;
  window?: unknown;
  /** Tokens before and after, with `measure` (the statistics' count: over 1 MiB estimated). */
  tokensBefore?: number;
  tokensAfter?: number;
  /** Why the original could not be stashed (the text is then left whole). */
  stashError?: string;
  /** What the collapse threw (`reverted:threw`: the text is then left whole). */
  error?: Error;
}

/** {@link CollapsedOutput} for content of any shape (a result's blocks too). */
export type CollapsedContent = Omit<CollapsedOutput, 'text'> & { content: Content };

/**
 * The one door to collapse one output: within its budget it comes back as it is; over it the
 * exact original (the bytes as read, when given a Buffer) is stashed in `store` and the text
 * keeps its ends and the lines that matter, with markers naming the recall id. An output
 * spillway wrote itself comes back as it is (`already_marked`), and what it writes is recorded
 * so (see recordOwnOutput). The client hooks, `spillway run` and `collapse`, the MCP gateway,
 * the framework integrations, the root's `collapse()` and session pruning all collapse here.
 *
 * @example
 * const out = await collapseOutput(await readFile('build.log'), { store, budget: 1800, tool: 'Bash' });
 * process.stdout.write(out.text);
 */
export async function collapseOutput(
  raw: Buffer | string,
  options: CollapseOutputOptions,
): Promise<CollapsedOutput> {
  const text = typeof raw === 'string' ? raw : decodeUtf8(raw);
  // The stash keeps the bytes as read, even where they are not valid UTF-8.
  const { content, ...out } = await collapseContent(text, options, typeof raw === 'string' ? undefined : raw);
  return { text: content as string, ...out };
}

/**
 * {@link collapseOutput} of a result's content, a string or blocks (text beside images: each
 * large text block collapsed in its place under its own id). `originalBytes`: the bytes the
 * text was decoded from, stashed as they are.
 *
 * @example
 * const out = await collapseContent(blocks, { store, maxTokens: 2000 });
 */
export async function collapseContent(
  content: Content,
  options: CollapseOutputOptions,
  originalBytes?: Buffer,
): Promise<CollapsedContent> {
  const {
    store,
    budget,
    tokenizer: named,
    measure,
    tool,
    input,
    said,
    isExpandOutput,
    query,
    read,
    ...collapse
  } = options;
  const call = { tool, input, said, isExpandOutput, query, read, toolBudget: budget };
  const tokenizer = typeof named === 'object' ? named : getTokenizer(named);
  const original = originalOf(content, originalBytes);
  // Only a measured output pays for its size (most outputs fit and are never encoded whole).
  const before = !measure
    ? 0
    : typeof content === 'string' && !originalBytes
      ? original.body().length
      : contentBytes(content);
  let decision: OutputDecision | { action: 'threw'; error: Error };
  if (await isOwnOutput(store, content, () => original.hash()))
    decision = { action: 'declined', reason: 'already_marked' };
  else
    decision = await decideOutput(content, collapse, call, {
      store,
      tokenizer,
      id: () => original.id(),
      stash: () => stashOriginal(store, original),
    }).catch((err: unknown) => ({ action: 'threw' as const, error: toError(err) }));
  // Remembered counts (shared by the process, as the engine's): the gateway sees the same
  // results again, and a whole original is counted once.
  const stats = memoTokenizer(tokenizer);
  const tokensBefore = measure ? statsCount(stats, content, before) : undefined;
  if (decision.action !== 'acted') {
    const stashError = decision.action === 'declined' ? decision.detail?.stashError : undefined;
    return {
      content,
      step: decision.action === 'threw' ? 'reverted:threw' : decision.reason,
      ...(measure ? { tokensBefore, tokensAfter: tokensBefore } : {}),
      ...(stashError !== undefined ? { stashError: String(stashError) } : {}),
      ...(decision.action === 'threw' ? { error: decision.error } : {}),
    };
  }
  // What spillway wrote is recorded, so it is recognised when it comes back (not its markers).
  await recordOwnOutput(store, decision.content).catch(() => {});
  return {
    content: decision.content,
    step: 'acted',
    ...(decision.stashId ? { id: decision.stashId } : {}),
    window: decision.detail.window,
    ...(measure
      ? { tokensBefore, tokensAfter: statsCount(stats, decision.content, contentBytes(decision.content)) }
      : {}),
  };
}

/**
 * Collapses `raw` as collapseOutput does, lowering the budget until the text has at most
 * `charLimit` code units: what a client shows is bounded in characters as well as tokens (a
 * client cuts again what is over its own limit, and the recall id could go with that cut).
 *
 * @example
 * const out = await collapseWithin(raw, { store, budget: 9000, charLimit: 40_000 });
 */
export async function collapseWithin(
  raw: Buffer,
  options: CollapseOutputOptions & { budget: number; charLimit: number },
): Promise<CollapsedOutput> {
  const { charLimit, ...rest } = options;
  let budget = options.budget;
  for (;;) {
    const out = await collapseOutput(raw, { ...rest, budget });
    // Bounded however it is called: a limit that is not a number ends the search at once.
    if (out.text.length <= charLimit || !(budget >= 64)) return out;
    budget = Math.floor((budget * charLimit) / out.text.length / 1.1);
  }
}
