import { z } from 'zod';
import { flag, fraction, wholeNumber } from '../config-schema.js';

/** The budget of a collapsed result when nothing sets one. */
export const DEFAULT_COLLAPSE_MAX_TOKENS = 2000;
/** Reads over this many tokens are collapsed even with `keepReads` (Claude Code's Read limit). */
export const DEFAULT_READ_MAX_TOKENS = 25_000;
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
  /**
   * Leave a file's content whole at arrival (a coding agent read it to edit it; supersede
   * masks it once it goes stale), up to `readMaxTokens`.
   */
  keepReads: flag().optional(),
  /** Reads over this many tokens are collapsed all the same (default 25,000). */
  readMaxTokens: wholeNumber(0).optional(),
  /** More tool names whose results are a file's content, beside the built-in ones. */
  readTools: z.array(z.string({ error: 'must be a list of tool names' })).optional(),
});
export type CollapseOptions = z.infer<typeof CollapseOptionsSchema>;

/**
 * The token budget collapse gives a result: the tool's own budget when it has one, else
 * `maxFrac` of the model's window when both are known, else `maxTokens`, else the default. The
 * one place a budget is decided: the stage, the replay's checks and session pruning all ask it.
 *
 * @example
 * collapseBudget({ maxFrac: 0.02 }, { modelWindow: 200_000 }); // 4000
 * collapseBudget({ maxTokens: 1500 }, { toolBudget: 4000 }); // 4000
 * collapseBudget({ keepReads: true }, { isRead: true }); // 25000
 */
export function collapseBudget(
  options: CollapseOptions,
  context: { modelWindow?: number | undefined; toolBudget?: number | undefined; isRead?: boolean } = {},
): number {
  if (context.toolBudget !== undefined) return context.toolBudget;
  // A file read kept whole at arrival may take up to the read limit (it is collapsed to the
  // ordinary budget only past that).
  if (context.isRead && options.keepReads) return options.readMaxTokens ?? DEFAULT_READ_MAX_TOKENS;
  if (options.maxFrac !== undefined && context.modelWindow)
    return Math.floor(options.maxFrac * context.modelWindow);
  return options.maxTokens ?? DEFAULT_COLLAPSE_MAX_TOKENS;
}
