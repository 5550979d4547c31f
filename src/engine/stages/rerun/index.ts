import { z } from 'zod';
import { wholeNumber } from '../../../config-schema.js';
import { callKeyOf, markerIds, rerunHeader, textOf } from '../../../text/index.js';
import type { Stage, StageItem } from '../../types.js';
import { decideThenStash } from '../per-item.js';
import { rerunDiff } from './diff.js';

/** rerun's options. */
export const RerunOptionsSchema = z.strictObject({
  /** Outputs smaller than this many bytes are left whole (default 2048). */
  minBytes: wholeNumber(0).optional(),
  /** The share of an output's lines that must be as in the earlier run, in percent (default 50). */
  minSamePercent: wholeNumber(1).max(100).optional(),
});
export type RerunOptions = z.infer<typeof RerunOptionsSchema>;

/** The latest earlier run of the same command, for each result that repeats one. */
function earlierRuns(conversation: readonly StageItem[]): Map<StageItem, StageItem> {
  const order = [...conversation].sort((a, b) => a.result.position - b.result.position);
  const last = new Map<string, StageItem>();
  const out = new Map<StageItem, StageItem>();
  for (const item of order) {
    const key = callKeyOf(item.result);
    if (key?.kind !== 'command') continue;
    const earlier = last.get(key.command);
    if (earlier) out.set(item, earlier);
    last.set(key.command, item);
  }
  return out;
}

/**
 * rerun: when a command runs again and most of its output is as in its earlier run (a test
 * suite after a fix, a build after an edit), the new result shows what changed: the lines that
 * differ as they are, each unchanged stretch as one line naming its lines here and in the earlier
 * run; both outputs are stashed, so either recalls whole. Only the very same command (its
 * exact text) is compared; never another.
 *
 * @example
 * const stage = rerunStage({ minSamePercent: 60 });
 */
export function rerunStage(options: RerunOptions = {}): Stage {
  const minBytes = options.minBytes ?? 2048;
  const minSame = (options.minSamePercent ?? 50) / 100;
  return {
    name: 'rerun',
    lossy: true,
    pure: false,
    async run(items, _ctx, conversation) {
      const earlier = earlierRuns(conversation);
      return decideThenStash(items, (item) => {
        const before = earlier.get(item);
        const text = textOf(item.content);
        const was = before && textOf(before.original);
        if (!before || was === null || was === undefined)
          return { action: 'declined', reason: 'not_a_rerun' };
        if (text === null || item.originalBytes() < minBytes)
          return { action: 'declined', reason: 'below_min_size' };
        // What an earlier stage made of it (a marker) is not a run's output to compare.
        if (markerIds(text).length > 0 || markerIds(was).length > 0)
          return { action: 'declined', reason: 'already_marked' };
        const diff = rerunDiff(was, text);
        if (!diff || diff.same < diff.lines * minSame)
          return { action: 'declined', reason: 'mostly_changed' };
        const command = (callKeyOf(item.result) as { command: string }).command;
        // The earlier output is stashed too: the header names the id that recalls it.
        let earlierId = '';
        return {
          stash: before.stashOriginal().then((eid) => {
            earlierId = eid;
            return item.stashOriginal();
          }),
          acted: (id) => {
            const header = rerunHeader({
              command,
              earlierCall: before.result.id,
              same: diff.same,
              lines: diff.lines,
              id,
              earlierId,
            });
            return { action: 'acted', content: `${header}\n${diff.body}`, stashId: id };
          },
        };
      });
    },
  };
}
