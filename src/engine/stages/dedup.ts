import { z } from 'zod';
import { wholeNumber } from '../../config-schema.js';
import { toError } from '../../errors.js';
import { callKeyOf, dedupPointer } from '../../text/index.js';
import type { Decision, Stage, StageItem } from '../types.js';
import { supersedes } from './supersede.js';

/** dedup's options. */
export const DedupOptionsSchema = z.strictObject({
  /** Results smaller than this many bytes are left alone: a pointer would not save much. */
  minBytes: wholeNumber(0).optional(),
});
export type DedupOptions = z.infer<typeof DedupOptionsSchema>;

/**
 * dedup: a result byte-identical to an earlier one in the conversation (and at least
 * `minBytes` long) becomes a short pointer naming the earlier call, with a recall id.
 *
 * @example
 * const stage = dedupStage({ minBytes: 512 });
 */
export function dedupStage(options: DedupOptions = {}): Stage {
  const minBytes = options.minBytes ?? 512;
  return {
    name: 'dedup',
    lossy: true,
    pure: false,
    async run(items, _ctx, conversation) {
      // The first result with each original, in conversation order.
      const first = new Map<string, StageItem>();
      const order = [...conversation].sort((a, b) => a.result.position - b.result.position);
      const hashes = new Map<StageItem, string>();
      for (const item of order) {
        const h = item.originalHash();
        hashes.set(item, h);
        if (!first.has(h)) first.set(h, item);
      }
      const out: (Decision | Error)[] = [];
      for (const item of items) {
        try {
          if (item.originalBytes() < minBytes) {
            out.push({ action: 'declined', reason: 'below_min_size' });
            continue;
          }
          const earlier = first.get(hashes.get(item) ?? item.originalHash());
          if (!earlier || earlier === item || earlier.result.id === item.result.id) {
            out.push({ action: 'declined', reason: 'no_earlier_duplicate' });
            continue;
          }
          // A re-read or a rerun repeats an earlier call: the earlier copy goes stale (supersede
          // masks it), so this one is kept whole rather than pointing at it.
          if (repeatsCall(earlier, item)) {
            out.push({ action: 'declined', reason: 'superseded_instead' });
            continue;
          }
          const id = await item.stashOriginal();
          out.push({
            action: 'acted',
            content: dedupPointer(earlier.result.id, earlier.result.tool, id),
            stashId: id,
          });
        } catch (err) {
          out.push(toError(err));
        }
      }
      return out;
    },
  };
}

function repeatsCall(earlier: StageItem, later: StageItem): boolean {
  const a = callKeyOf(earlier.result);
  const b = callKeyOf(later.result);
  return a !== undefined && b !== undefined && supersedes(a, b) !== undefined;
}
