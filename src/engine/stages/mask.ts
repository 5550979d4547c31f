import { z } from 'zod';
import { wholeNumber } from '../../config-schema.js';
import { MASK_PREFIX, maskPlaceholder, textOf } from '../../text/index.js';
import type { Stage, StageItem } from '../types.js';
import { decideThenStash } from './per-item.js';
import { worthRewriting } from './prefix-rewrite.js';

/** mask's options. */
export const MaskOptionsSchema = z.strictObject({
  /** The newest this many results are never masked (default 10). */
  keepRecent: wholeNumber(0).optional(),
  /** Old results are masked only once this many are waiting, all together (default 10). */
  batch: wholeNumber(1).optional(),
  /**
   * Old tool calls' large arguments (Write and Edit contents) are cleared too, in the same
   * batches, each string a marker that recalls it (default false; on in `aggressive`).
   */
  inputs: z.boolean().optional(),
});
export type MaskOptions = z.infer<typeof MaskOptionsSchema>;

/**
 * The batch rule of masking: how many of the oldest of `count` items (results, or calls when
 * inputs are cleared) are due, `batch` x floor(old / batch), `old` being how many are older
 * than the newest `keepRecent`. It depends on the request alone, so proxies that share a store
 * and take turns of one conversation mask the same ones.
 *
 * @example
 * dueCount(25, {}); // 10: the oldest 10 (15 are old, one whole batch of 10)
 */
export function dueCount(count: number, options: Pick<MaskOptions, 'keepRecent' | 'batch'>): number {
  const batch = Math.max(1, options.batch ?? 10);
  return Math.floor(oldCount(count, options) / batch) * batch;
}

/** How many of `count` items are older than the newest `keepRecent` (default 10). */
function oldCount(count: number, options: Pick<MaskOptions, 'keepRecent'>): number {
  return Math.max(0, count - Math.max(0, options.keepRecent ?? 10));
}

function isMasked(item: StageItem): boolean {
  return (textOf(item.content) ?? '').startsWith(MASK_PREFIX);
}

/**
 * mask (observation masking): results older than the newest `keepRecent` become a one-line
 * placeholder with a recall id. Masking rewrites results inside the provider's cached
 * prefix, which makes every later token uncached once; so it masks in whole batches (see
 * {@link dueCount}), and of a batch only results worth it: never one that saves under
 * MIN_REWRITE_SAVING tokens, an error output never before a larger result, and only where the
 * tokens saved over the conversation's expected remaining requests outweigh the cache writes
 * (see rewrite-pays.ts). The cache is invalidated at most once per batch, and the masked form
 * is frozen so later turns replay it. With `inputs`, the engine clears old calls' large
 * arguments by the same rule (see clear-inputs.ts).
 *
 * @example
 * const stage = maskStage({ keepRecent: 10, batch: 10 });
 */
export function maskStage(options: MaskOptions = {}): Stage {
  return {
    name: 'mask',
    lossy: true,
    pure: false,
    actsOnPrefix: true,
    async run(items, ctx, conversation) {
      const order = [...conversation].sort((a, b) => a.result.position - b.result.position);
      const recent = new Set(order.slice(oldCount(order.length, options)));
      const due = new Set(order.slice(0, dueCount(order.length, options)));
      const placeholder = (item: StageItem, tokens: number) =>
        maskPlaceholder(item.result.tool, item.result.id, tokens, item.originalId());
      const { chosen, why } = worthRewriting(
        items.filter((item) => due.has(item) && !recent.has(item) && !isMasked(item)),
        ctx,
        conversation,
        placeholder,
      );
      return decideThenStash(items, (item) => {
        if (recent.has(item)) return { action: 'declined', reason: 'recent' };
        if (isMasked(item)) return { action: 'declined', reason: 'already_marked' };
        if (!due.has(item)) return { action: 'declined', reason: 'batch_not_full' };
        if (!chosen.has(item)) return { action: 'declined', reason: why.get(item) ?? 'does_not_pay' };
        const text = textOf(item.content);
        const tokens = text === null ? 0 : ctx.tokenizer.count(text);
        return {
          stash: item.stashOriginal(),
          acted: (id) => ({
            action: 'acted',
            content: maskPlaceholder(item.result.tool, item.result.id, tokens, id),
            stashId: id,
          }),
        };
      });
    },
  };
}
