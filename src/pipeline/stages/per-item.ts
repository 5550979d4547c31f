import { toError } from '../../errors.js';
import type { Decision, StageContext, StageItem } from '../types.js';

/**
 * The size of a result's new content when a stage changed its text by `delta` UTF-8 bytes, for
 * the decision's `bytes`: known for a string without measuring megabytes again; left for the
 * runner to measure for blocks, whose JSON escapes the text differently.
 *
 * @example
 * return { action: 'acted', content: withText(item.content, clean), ...sizeAfter(item, -removedBytes) };
 */
export function sizeAfter(item: StageItem, delta: number): { bytes?: number } {
  return typeof item.content === 'string' ? { bytes: item.bytes() + delta } : {};
}

/**
 * A stage body that decides each result on its own; an exception on one result reverts only
 * that result.
 *
 * @example
 * const stage: Stage = { name: 'textclean', lossy: false, pure: true, run: perItem((item) => ({ action: 'declined', reason: 'nothing_to_clean' })) };
 */
export function perItem(
  decide: (
    item: StageItem,
    ctx: StageContext,
    conversation: readonly StageItem[],
  ) => Decision | Promise<Decision>,
): (
  items: readonly StageItem[],
  ctx: StageContext,
  conversation: readonly StageItem[],
) => Promise<(Decision | Error)[]> {
  // Results are decided side by side: while one waits on its stash write, the next one's window
  // is being fitted. Each decision depends only on its own result, so the order of completion
  // changes nothing; the array keeps the items' order.
  return async (items, ctx, conversation) =>
    Promise.all(
      items.map(async (item) => {
        try {
          return await decide(item, ctx, conversation);
        } catch (err) {
          return toError(err);
        }
      }),
    );
}
