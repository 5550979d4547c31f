import { type Store, stash } from '../store/index.js';
import { type ContentBlock, isTextBlock, stashId, type TextBlock } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import type { OutputDecision } from './decision.js';
import { type CollapseTextOptions, collapseText } from './text.js';

/**
 * How a budget is shared by text blocks of these sizes: blocks that fit their fair share keep
 * all of it; the rest split what is left evenly. Undefined for a block that is kept whole.
 *
 * @example
 * shareBudget([100, 9000, 40], 2000); // [undefined, 1860, undefined]
 */
export function shareBudget(tokens: readonly number[], budget: number): (number | undefined)[] {
  const order = tokens.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i);
  const shares: (number | undefined)[] = tokens.map(() => undefined);
  let left = budget;
  for (let k = 0; k < order.length; k++) {
    const { t } = order[k] as { t: number };
    const fair = Math.floor(left / (order.length - k));
    if (t <= fair) {
      left -= t;
      continue;
    }
    // This block and every larger one share what is left.
    for (const rest of order.slice(k)) shares[rest.i] = fair;
    break;
  }
  return shares;
}

/**
 * Collapse of a result that holds text beside images, documents or other blocks: the text
 * blocks share the budget (the small ones stay whole), each large one is collapsed on its own
 * with its own text stashed under its own id, and every other block keeps its place untouched.
 *
 * @example
 * await collapseBlocks(blocks, { budget: 2000 }, ctx); // [text collapsed, image as it was]
 */
export async function collapseBlocks(
  blocks: readonly ContentBlock[],
  options: CollapseTextOptions,
  ctx: { store: Store; tokenizer: Tokenizer },
): Promise<OutputDecision> {
  const texts = blocks.flatMap((b, i) => (isTextBlock(b) ? [{ i, text: b.text }] : []));
  if (texts.length === 0) return { action: 'declined', reason: 'non_text_blocks' };
  if (options.isExpandOutput) return { action: 'declined', reason: 'kept_verbatim_after_expand' };
  const budget = Math.max(0, options.budget);
  const tokens = texts.map(({ text }) => ctx.tokenizer.countUpTo(text, budget));
  if (tokens.reduce((a, b) => a + b, 0) <= budget) return { action: 'declined', reason: 'below_max_tokens' };
  const shares = shareBudget(tokens, budget);
  const out = [...blocks];
  let firstId: string | undefined;
  let stashError: string | undefined;
  for (const [k, { i, text }] of texts.entries()) {
    const share = shares[k];
    if (share === undefined) continue;
    const result = await collapseText(
      text,
      { ...options, budget: share },
      { tokenizer: ctx.tokenizer, id: () => stashId(text), stash: () => stash(ctx.store, text) },
    );
    if (result.action === 'declined') continue;
    // A block whose original could not be stashed stays whole: nothing is cut unrecallably.
    if (result.fallback) {
      stashError ??= result.stashError;
      continue;
    }
    out[i] = { ...(blocks[i] as TextBlock), text: result.text };
    firstId ??= result.id;
  }
  if (firstId === undefined)
    return stashError === undefined
      ? { action: 'declined', reason: 'marker_no_win' }
      : { action: 'declined', reason: 'stash_failed', detail: { stashError } };
  return { action: 'acted', content: out, stashId: firstId, detail: { window: 'blocks' } };
}
