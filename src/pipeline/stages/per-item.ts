import type { Decision, StageContext, StageItem } from '../types.js';

/**
 * A stage body that decides each result on its own; an exception on one result reverts only
 * that result.
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
  return async (items, ctx, conversation) => {
    const out: (Decision | Error)[] = [];
    for (const item of items) {
      try {
        out.push(await decide(item, ctx, conversation));
      } catch (err) {
        out.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return out;
  };
}
