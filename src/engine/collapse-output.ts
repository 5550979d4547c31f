import { DEFAULT_COLLAPSE_MAX_TOKENS, DEFAULT_WINDOW_LINES } from '../collapse/index.js';
import type { Store } from '../store/index.js';
import { decodeUtf8 } from '../text/index.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { resolvePipeline } from './config.js';
import { ConversationEngine } from './conversation.js';

/**
 * The budget for a collapse made at the source (`spillway run`, the client hooks): under the
 * proxy's default 2,000 tokens with room for the frame a client puts around a shell output
 * (Codex's "Exit code ... Output:", Gemini CLI's tags, Claude Code's file line), so the proxy
 * leaves it as it is rather than collapsing spillway's own output again.
 */
export const SOURCE_MAX_TOKENS = DEFAULT_COLLAPSE_MAX_TOKENS - 200;

/** What one collapse of one output did. */
export interface CollapsedOutput {
  /** What the model should see: the output itself when it fits, else the collapse with markers. */
  text: string;
  /** `acted` when the text was shortened; otherwise why not (`below_max_tokens`, ...). */
  step: string;
  /** The recall id of the stashed original, when it was stashed. */
  id?: string;
  window?: unknown;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Why the original could not be stashed (the text is then shortened and not recallable). */
  stashError?: string;
}

export interface CollapseOutputOptions {
  store: Store;
  maxTokens?: number;
  headLines?: number;
  tailLines?: number;
  tokenizer?: string;
  /** The tool that produced the output (a stat label only). */
  tool?: string;
  /** The arguments of the call that produced it: lines naming what it asked for are kept too. */
  input?: unknown;
}

/**
 * Collapses one command output to a token budget through the conversation engine (the collapse
 * stage alone), stashing the exact bytes: what `spillway collapse`, `spillway run` and the client
 * hooks share.
 *
 * @example
 * const out = await collapseOutput(await readFile('build.log'), { store });
 * process.stdout.write(out.text);
 */
export async function collapseOutput(raw: Buffer, options: CollapseOutputOptions): Promise<CollapsedOutput> {
  const pipeline = resolvePipeline({
    stages: [
      {
        name: 'collapse',
        maxTokens: options.maxTokens ?? DEFAULT_COLLAPSE_MAX_TOKENS,
        headLines: options.headLines ?? DEFAULT_WINDOW_LINES,
        tailLines: options.tailLines ?? DEFAULT_WINDOW_LINES,
      },
    ],
    tokenizer: getTokenizer(options.tokenizer).name,
  });
  const turn = await new ConversationEngine({ pipeline, store: options.store }).turn({
    results: [
      {
        id: 'output',
        tool: options.tool ?? '',
        ...(options.input !== undefined ? { input: options.input } : {}),
        content: decodeUtf8(raw),
        position: 0,
        // The stash keeps the bytes as read, even where they are not valid UTF-8.
        originalBytes: raw,
      },
    ],
    messageCount: 1,
  });
  const outcome = turn.outcomes[0];
  const step = outcome?.trail.find((t) => t.stage === 'collapse')?.outcome ?? 'below_max_tokens';
  const stashError = outcome?.detail?.stashError as string | undefined;
  return {
    text: turn.results[0]?.content as string,
    step,
    ...(outcome?.stashId ? { id: outcome.stashId } : {}),
    ...(outcome?.detail?.window !== undefined ? { window: outcome.detail.window } : {}),
    ...(outcome ? { tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter } : {}),
    ...(stashError !== undefined ? { stashError } : {}),
  };
}

/**
 * Collapses `raw` as collapseOutput does, lowering the budget until the text has at most
 * `maxChars` code units: what a client shows is bounded in characters as well as tokens (a
 * client cuts again what is over its own limit, and the recall id could go with that cut).
 *
 * @example
 * const out = await collapseWithin(raw, { store, maxTokens: 9000, maxChars: 40_000 });
 */
export async function collapseWithin(
  raw: Buffer,
  options: CollapseOutputOptions & { maxTokens: number; maxChars: number },
): Promise<CollapsedOutput> {
  let maxTokens = options.maxTokens;
  for (;;) {
    const out = await collapseOutput(raw, { ...options, maxTokens });
    if (out.text.length <= options.maxChars || maxTokens < 64) return out;
    maxTokens = Math.floor((maxTokens * options.maxChars) / out.text.length / 1.1);
  }
}
