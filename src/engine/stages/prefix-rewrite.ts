import { textOf } from '../../text/index.js';
import { chooseRewrites, MIN_REWRITE_SAVING, prefixEconomics } from '../rewrite-pays.js';
import type { StageContext, StageItem } from '../types.js';

/** The text of an item as it stands, or its JSON when it holds blocks. */
const textNow = (item: StageItem) => textOf(item.content) ?? JSON.stringify(item.content);

/**
 * Which of `due` (old results a stage would turn into a marker) it should: those that save at
 * least {@link MIN_REWRITE_SAVING} tokens, and, on a request with a warm cache, only a set whose
 * savings over the conversation's expected remaining requests outweigh the cache writes the
 * rewrite costs (see rewrite-pays.ts). Returns the chosen ones and why each other one stays.
 *
 * @example
 * const { chosen, why } = worthRewriting(due, ctx, conversation, (item, tokens) => maskPlaceholder(...));
 */
export function worthRewriting(
  due: readonly StageItem[],
  ctx: StageContext,
  conversation: readonly StageItem[],
  marker: (item: StageItem, tokens: number) => string,
): { chosen: Set<StageItem>; why: Map<StageItem, 'too_small' | 'does_not_pay'> } {
  const count = (text: string) => (ctx.statsTokenizer ?? ctx.tokenizer).count(text);
  const why = new Map<StageItem, 'too_small' | 'does_not_pay'>();
  const candidates = due.map((item) => {
    const tokens = count(textNow(item));
    const saving = tokens - count(marker(item, tokens));
    if (saving < MIN_REWRITE_SAVING) why.set(item, 'too_small');
    return { item, position: item.result.position, saving, error: item.result.isError === true };
  });
  const economics = ctx.economics;
  const chosen = economics
    ? chooseRewrites(
        candidates,
        prefixEconomics(
          economics,
          conversation.map((item) => ({ position: item.result.position, text: () => textNow(item) })),
          count,
        ),
      )
    : new Set(candidates.filter((c) => c.saving >= MIN_REWRITE_SAVING).map((c) => c.item));
  for (const c of candidates) if (!chosen.has(c.item) && !why.has(c.item)) why.set(c.item, 'does_not_pay');
  return { chosen, why };
}
