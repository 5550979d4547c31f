import { z } from 'zod';
import { wholeNumber } from '../../config-schema.js';
import {
  type CallKey,
  callKeyOf,
  contentBytes,
  SUPERSEDED_PREFIX,
  samePath,
  supersededPlaceholder,
  textOf,
} from '../../text/index.js';
import type { Stage, StageItem } from '../types.js';
import { LaterCalls } from './later-calls.js';
import { decideThenStash } from './per-item.js';
import { worthRewriting } from './prefix-rewrite.js';

/** supersede's options. */
export const SupersedeOptionsSchema = z.strictObject({
  /** Superseded results in the cached prefix are masked only once this many wait (default 5). */
  batch: wholeNumber(1).optional(),
  /** More tool names whose results are a file's content, beside the built-in ones. */
  readTools: z.array(z.string({ error: 'must be a list of tool names' })).optional(),
});
export type SupersedeOptions = z.infer<typeof SupersedeOptionsSchema>;

/**
 * Why a later call makes an earlier result stale, or undefined when it does not.
 *
 * @example
 * supersedes({ kind: 'command', command: 'npm test' }, { kind: 'command', command: 'npm test' }); // 'the same command run again'
 */
export function supersedes(earlier: CallKey, later: CallKey): string | undefined {
  if (earlier.kind === 'read') {
    if (later.kind === 'read' && samePath(earlier.path, later.path) && earlier.part === later.part)
      return `${earlier.path} read again`;
    if (later.kind === 'edit' && later.paths.some((p) => samePath(earlier.path, p)))
      return `${earlier.path} edited since`;
  }
  if (earlier.kind === 'command' && later.kind === 'command' && earlier.command === later.command)
    return 'the same command run again';
  return undefined;
}

/**
 * The results a later call made stale, each with why and the id of the latest such call: the
 * conversation is read from its end, each call looked up among the ones after it.
 */
function staleResults(
  order: readonly StageItem[],
  readTools: readonly string[],
): Map<StageItem, { reason: string; later: string }> {
  const why = new Map<StageItem, { reason: string; later: string }>();
  const later = new LaterCalls();
  for (let i = order.length - 1; i >= 0; i--) {
    const item = order[i] as StageItem;
    const key = callKeyOf(item.result, readTools);
    if (!key) continue;
    const latest = later.latestSuperseding(key);
    const reason = latest && supersedes(key, latest.key);
    if (latest && reason) why.set(item, { reason, later: latest.id });
    later.add(key, item.result.id);
  }
  return why;
}

function isMasked(item: StageItem): boolean {
  return (textOf(item.content) ?? '').startsWith(SUPERSEDED_PREFIX);
}

/**
 * supersede: a file's content is a source, not a log: a read is kept whole until it goes
 * stale (the same part of the file read again, or the file edited since), and a command's
 * output until the same command runs again (a rerun test or build). Then the stale result
 * becomes a one-line placeholder that says why and recalls the original. In the tail this
 * happens at once; in the provider's cached prefix only when `batch` stale results wait, all
 * together, and of them only those worth a rewrite (as mask, see prefix-rewrite.ts), so the
 * cache is rewritten at most once a batch; every placeholder is frozen.
 *
 * @example
 * const stage = supersedeStage({ batch: 5 });
 */
export function supersedeStage(options: SupersedeOptions = {}): Stage {
  const batch = Math.max(1, options.batch ?? 5);
  const readTools = options.readTools ?? [];
  return {
    name: 'supersede',
    lossy: true,
    pure: false,
    actsOnPrefix: true,
    async run(items, ctx, conversation) {
      const order = [...conversation].sort((a, b) => a.result.position - b.result.position);
      const why = staleResults(order, readTools);
      const placeholder = (item: StageItem) => {
        const stale = why.get(item) as { reason: string; later: string };
        return supersededPlaceholder(
          item.result.tool,
          item.result.id,
          stale.reason,
          stale.later,
          item.originalId(),
        );
      };
      const waiting = items.filter(
        (item) => why.has(item) && !isMasked(item) && item.result.position < ctx.cachedPrefix,
      );
      // In the cached prefix, a full batch and only what pays (see prefix-rewrite.ts).
      const worth =
        waiting.length >= batch ? worthRewriting(waiting, ctx, conversation, placeholder) : undefined;
      return decideThenStash(items, (item) => {
        const stale = why.get(item);
        if (!stale) return { action: 'declined', reason: 'not_superseded' };
        if (isMasked(item)) return { action: 'declined', reason: 'already_marked' };
        if (item.result.position < ctx.cachedPrefix) {
          if (!worth) return { action: 'declined', reason: 'batch_not_full' };
          if (!worth.chosen.has(item))
            return { action: 'declined', reason: worth.why.get(item) ?? 'does_not_pay' };
        }
        const content = placeholder(item);
        // A placeholder longer than the result saves nothing.
        if (contentBytes(item.content) <= Buffer.byteLength(content))
          return { action: 'declined', reason: 'below_min_size' };
        return { stash: item.stashOriginal(), acted: (id) => ({ action: 'acted', content, stashId: id }) };
      });
    },
  };
}
