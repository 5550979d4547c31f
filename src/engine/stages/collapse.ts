import { type CollapseOptions, decideOutput } from '../../collapse/index.js';
import type { Stage } from '../types.js';
import { perItem } from './per-item.js';

/**
 * collapse: the content-agnostic last resort. Keeps a head/tail window under a token budget
 * (a line window when that at least halves the bytes and fits, else a character window fitted
 * exactly to the budget) and stashes the full original behind a `<<sw:ID>>` marker. Each result
 * is decided by the one collapse of one output (collapse/output.ts), with the result's own
 * stash: what the hooks, `spillway collapse` and the root's `collapse()` make of the same text
 * at the same budget, byte for byte.
 *
 * @example
 * const stage = collapseStage({ maxTokens: 2000, headLines: 20, tailLines: 20 });
 */
export function collapseStage(options: CollapseOptions = {}): Stage {
  return {
    name: 'collapse',
    lossy: true,
    pure: false,
    run: perItem((item, ctx) => {
      const { tool, input, said, isExpandOutput } = item.result;
      return decideOutput(
        item.content,
        options,
        { tool, input, said, isExpandOutput, toolBudget: item.toolBudget, modelWindow: ctx.modelWindow },
        {
          store: ctx.store,
          tokenizer: ctx.tokenizer,
          id: () => item.originalId(),
          stash: () => item.stashOriginal(),
        },
      );
    }),
  };
}
