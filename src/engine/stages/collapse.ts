import {
  type CollapseOptions,
  collapseBudget,
  collapseText,
  DEFAULT_READ_MAX_TOKENS,
} from '../../collapse/index.js';
import { askedTerms } from '../../signals/index.js';
import { stashKey } from '../../store/index.js';
import { type ContentBlock, textOf, withText } from '../../text/index.js';
import { callKeyOf } from '../call-keys.js';
import type { Decision, Stage, StageContext, StageItem } from '../types.js';
import { collapseBlocks } from './collapse-blocks.js';
import { perItem } from './per-item.js';

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
      const budget = collapseBudget(options, {
        modelWindow: ctx.modelWindow,
        toolBudget: item.toolBudget,
      });
      const isExpandOutput = item.result.isExpandOutput;
      const query = askedTerms(item.result.input, item.result.said);
      const outline = callKeyOf(item.result, options.readTools)?.kind === 'read';
      const text = textOf(item.content);
      if (
        options.keepReads &&
        item.toolBudget === undefined &&
        text !== null &&
        isSourceRead(item, text, options, ctx)
      )
        return { action: 'declined', reason: 'source_read' };
      // Rich blocks, or several text blocks: each text block is shortened in its place, with its
      // fields (cache_control) intact, never merged into one.
      if (text === null || (typeof item.content !== 'string' && item.content.length > 1))
        return collapseBlocks(
          item.content as readonly ContentBlock[],
          { ...options, budget, isExpandOutput, query, outline },
          ctx,
        );
      const out = await collapseText(
        text,
        { ...options, budget, isExpandOutput, query, outline },
        {
          tokenizer: ctx.tokenizer,
          id: () => item.originalId(),
          stash: () => item.stashOriginal(),
          pathOf: ctx.store.pathOf ? (id) => ctx.store.pathOf?.(stashKey(id)) : undefined,
        },
      );
      if (out.action === 'declined') return out;
      // The original could not be stashed: the result goes whole (the client's own bytes),
      // never cut where it could not be recalled. Only the window guard, when a request would
      // not fit at all, cuts without a stash.
      if (out.fallback)
        return { action: 'declined', reason: 'stash_failed', detail: { stashError: out.stashError ?? '' } };
      return {
        action: 'acted',
        content: withText(item.content, out.text),
        ...(out.id ? { stashId: out.id } : {}),
        detail: { window: out.window, tokenizerCalls: out.tokenizerCalls },
      };
    }),
  };
}

function isSourceRead(item: StageItem, text: string, options: CollapseOptions, ctx: StageContext): boolean {
  if (callKeyOf(item.result, options.readTools)?.kind !== 'read') return false;
  const limit = options.readMaxTokens ?? DEFAULT_READ_MAX_TOKENS;
  return ctx.tokenizer.countUpTo(text, limit) <= limit;
}
