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

/** A decision that waits on its result's stash: the placeholder names the id the stash returns. */
export interface AwaitingStash {
  stash: Promise<string>;
  acted: (id: string) => Decision;
}

/**
 * Decides every result of a stage first, then waits on the stashes asked for while deciding:
 * they are all under way by then, so the store writes them together (see `stashOriginal`), not
 * one after another. A throw, or a failed stash, reverts only its own result.
 *
 * @example
 * return decideThenStash(items, (item) => ({ stash: item.stashOriginal(), acted: (id) => ({ action: 'acted', content: `[gone ${id}]`, stashId: id }) }));
 */
export async function decideThenStash(
  items: readonly StageItem[],
  decide: (item: StageItem) => Decision | AwaitingStash,
): Promise<(Decision | Error)[]> {
  const decided = items.map((item) => {
    try {
      const d = decide(item);
      // Waited on below, in order: a stash that fails first must not count as unhandled.
      if ('stash' in d) d.stash.catch(() => {});
      return d;
    } catch (err) {
      return toError(err);
    }
  });
  const out: (Decision | Error)[] = [];
  for (const d of decided) {
    try {
      out.push(d instanceof Error || !('stash' in d) ? d : d.acted(await d.stash));
    } catch (err) {
      out.push(toError(err));
    }
  }
  return out;
}
