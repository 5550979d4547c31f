import { z } from 'zod';
import { fraction, wholeNumber } from '../../config-schema.js';
import { toError } from '../../errors.js';
import { stashKey } from '../../store/ids.js';
import { textOf, withText } from '../../text/blocks.js';
import { hasMarker, STASH_FAILED_NOTE } from '../../text/markers.js';
import { utf8Length } from '../../text/measure.js';
import { snip } from '../../text/snip.js';
import type { Tokenizer } from '../../text/tokenizers/tokenizer.js';
import type { Decision, Stage, StageContext, StageItem } from '../types.js';
import { CHAR_FLOOR, fitCharWindow, lineWindow } from './collapse-windows.js';
import { perItem } from './per-item.js';

/** The budget of a collapsed result when nothing sets one. */
export const DEFAULT_COLLAPSE_MAX_TOKENS = 2000;
/** Lines the line window keeps at the start and at the end when nothing sets them. */
export const DEFAULT_WINDOW_LINES = 20;

/** collapse's options; negative line counts clamp to 0. */
export const CollapseOptionsSchema = z.strictObject({
  /** Token budget of a collapsed result (default {@link DEFAULT_COLLAPSE_MAX_TOKENS}). */
  maxTokens: wholeNumber(0).optional(),
  /** When set and the model's window is known: the budget is this fraction of the window. */
  maxFrac: fraction().optional(),
  /** Lines kept at the start and end by the line window (default 20 each). */
  headLines: wholeNumber().optional(),
  tailLines: wholeNumber().optional(),
});
export type CollapseOptions = z.infer<typeof CollapseOptionsSchema>;

/** What collapse decided about one text, with the facts a report or the CLI shows. */
export type CollapseOutcome =
  | { action: 'declined'; reason: Extract<Decision, { action: 'declined' }>['reason'] }
  | {
      action: 'acted';
      text: string;
      window: 'line' | 'char' | 'snip';
      id?: string;
      tokenizerCalls: number;
      fallback?: 'stash_failed';
      /** Why the stash failed, with the fallback. */
      stashError?: string;
    };

/**
 * The token budget collapse gives a result: the tool's own budget when it has one, else
 * `maxFrac` of the model's window when both are known, else `maxTokens`, else the default. The
 * one place a budget is decided: the stage, the replay's checks and session pruning all ask it.
 *
 * @example
 * collapseBudget({ maxFrac: 0.02 }, { modelWindow: 200_000 }); // 4000
 * collapseBudget({ maxTokens: 1500 }, { toolMaxTokens: 4000 }); // 4000
 */
export function collapseBudget(
  options: CollapseOptions,
  context: { modelWindow?: number | undefined; toolMaxTokens?: number | undefined } = {},
): number {
  if (context.toolMaxTokens !== undefined) return context.toolMaxTokens;
  if (options.maxFrac !== undefined && context.modelWindow)
    return Math.floor(options.maxFrac * context.modelWindow);
  return options.maxTokens ?? DEFAULT_COLLAPSE_MAX_TOKENS;
}

/**
 * The collapse algorithm on one text, without the pipeline around it. `id` gives the recall id
 * (the original's content hash); `stash` saves the original, before any marker is returned.
 *
 * Tokenizer calls, all on windows (never on the whole input) except the first, which stops
 * early: 1 for the budget gate, 1 for the line window, 1-2 for the path probe and the bare
 * marker, at most 6 secant steps, then bisection of whatever gap is left (log2 of it, usually
 * 0-4 calls; log2(n) in the worst case). A 15 MB one-line JSON takes about 10.
 *
 * @example
 * const out = await collapseText(log, { resolvedMaxTokens: 2000 }, { tokenizer, id: () => stashId(log), stash: () => stash(store, log) });
 */
export async function collapseText(
  text: string,
  options: CollapseOptions & { resolvedMaxTokens: number; isExpandOutput?: boolean; original?: string },
  deps: {
    tokenizer: Tokenizer;
    id: () => string;
    stash: () => Promise<unknown>;
    pathOf?: (id: string) => string | undefined;
  },
): Promise<CollapseOutcome> {
  const { tokenizer } = deps;
  let calls = 0;
  const count = (s: string, limit: number) => {
    calls++;
    return tokenizer.countUpTo(s, limit);
  };
  const maxTokens = Math.max(0, options.resolvedMaxTokens);
  const headLines = Math.max(0, Math.floor(options.headLines ?? DEFAULT_WINDOW_LINES));
  const tailLines = Math.max(0, Math.floor(options.tailLines ?? DEFAULT_WINDOW_LINES));

  if (hasMarker(options.original ?? text)) return { action: 'declined', reason: 'already_marked' };
  if (options.isExpandOutput) return { action: 'declined', reason: 'kept_verbatim_after_expand' };
  if (count(text, maxTokens) <= maxTokens) return { action: 'declined', reason: 'below_max_tokens' };

  // Measured only when needed: a one-line input never asks.
  let bytesOfText = -1;
  const bytes = () => {
    if (bytesOfText < 0) bytesOfText = utf8Length(text);
    return bytesOfText;
  };
  // The id is the original's hash, known before anything is stored, so every window is
  // measured with the real marker; the stash itself is written before the marker is returned.
  const id = deps.id();
  const filePath = deps.pathOf?.(id);
  const paths = filePath ? [filePath, undefined] : [undefined];
  let window: 'line' | 'char' | undefined;
  let build: ((id: string) => string) | undefined;

  // Line window: only when it at least halves the bytes and fits the budget (decided on bytes,
  // so the same content always gets the same window).
  const line = lineWindow(text, headLines, tailLines, paths, (candidate) => {
    if (utf8Length(candidate(id)) * 2 > bytes()) return false;
    return count(candidate(id), maxTokens) <= maxTokens;
  });
  if (line) {
    window = 'line';
    build = line;
  }

  if (!build) {
    if (text.length <= CHAR_FLOOR) return { action: 'declined', reason: 'too_few_lines_and_chars' };
    const ratio = headLines + tailLines === 0 ? 0.5 : headLines / (headLines + tailLines);
    const fit = fitCharWindow(text, ratio, maxTokens, id, paths, tokenizer);
    calls += fit.calls;
    window = 'char';
    build = fit.build;
  }

  // Smaller for certain when the output has under a third of the input's UTF-16 units (3 bytes
  // a unit at most); only otherwise are the input's bytes counted.
  const built = build(id);
  if (built.length * 3 >= text.length && utf8Length(built) >= bytes())
    return { action: 'declined', reason: 'marker_no_win' };
  try {
    await deps.stash();
  } catch (err) {
    // The request must still fit: snip to the budget, and say nothing can be recalled.
    const text2 = snip(text, {
      budget: Math.max(maxTokens, 1),
      unit: 'tokens',
      tokenizer,
      note: STASH_FAILED_NOTE,
    });
    return {
      action: 'acted',
      text: text2,
      window: 'snip',
      tokenizerCalls: calls,
      fallback: 'stash_failed',
      stashError: toError(err).message,
    };
  }
  return { action: 'acted', text: built, window: window as 'line' | 'char', id, tokenizerCalls: calls };
}

/**
 * collapse: the content-agnostic last resort. Keeps a head/tail window under a token budget
 * (a line window when that at least halves the bytes and fits, else a character window fitted
 * exactly to the budget) and stashes the full original behind a `<<sw:ID>>` marker.
 *
 * @example
 * const stage = collapseStage({ maxTokens: 2000, headLines: 20, tailLines: 20 });
 */
export function collapseStage(options: CollapseOptions = {}): Stage {
  return {
    name: 'collapse',
    lossy: true,
    pure: false,
    run: perItem(async (item: StageItem, ctx: StageContext): Promise<Decision> => {
      const text = textOf(item.content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      const out = await collapseText(
        text,
        {
          ...options,
          resolvedMaxTokens: collapseBudget(options, {
            modelWindow: ctx.modelWindow,
            toolMaxTokens: item.maxTokens,
          }),
          isExpandOutput: item.result.isExpandOutput,
          original: textOf(item.original) ?? text,
        },
        {
          tokenizer: ctx.tokenizer,
          id: () => item.originalId(),
          stash: () => item.stashOriginal(),
          pathOf: ctx.store.pathOf ? (id) => ctx.store.pathOf?.(stashKey(id)) : undefined,
        },
      );
      if (out.action === 'declined') return out;
      return {
        action: 'acted',
        content: withText(item.content, out.text),
        ...(out.id ? { stashId: out.id } : {}),
        ...(out.fallback ? { fallback: out.fallback } : {}),
        detail: {
          window: out.window,
          tokenizerCalls: out.tokenizerCalls,
          ...(out.stashError ? { stashError: out.stashError } : {}),
        },
      };
    }),
  };
}
