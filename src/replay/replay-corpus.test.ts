import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESET_NAMES, resolvePipeline } from '../pipeline/config.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { readTranscript } from './readers/index.js';
import { replayConversation } from './replay-conversation.js';

describe.skipIf(!corpusAvailable)('replaying every corpus transcript with every preset', () => {
  const pipelines = PRESET_NAMES.map((preset) => resolvePipeline({ preset }));
  for (const file of corpusFiles()) {
    it(file.slice(file.indexOf('corpus/') + 7), async () => {
      const { conversations } = readTranscript(readFileSync(file, 'utf8'), file);
      for (const pipeline of pipelines) {
        for (const conversation of conversations) {
          const r = await replayConversation(conversation, { pipeline });
          const where = `${pipeline.preset}: `;
          expect(r.violations, `${where}results over budget`).toEqual([]);
          expect(r.recallFailures, `${where}markers that do not recall their original`).toEqual([]);
          expect(r.prefixChanges, `${where}cached prefix rewritten between turns`).toEqual([]);
          expect(r.tokensAfter).toBeLessThanOrEqual(r.tokensBefore);
        }
      }
    });
  }
});

/** A window small enough that long corpus conversations outgrow it unguarded (input limit 20,784). */
const SMALL_WINDOW = 30_000;
let overBefore = 0;
let guardEvents = 0;

describe.skipIf(!corpusAvailable)(
  `every corpus transcript in a ${SMALL_WINDOW}-token window, balanced`,
  () => {
    const pipeline = resolvePipeline({ preset: 'balanced' });
    for (const file of corpusFiles()) {
      it(file.slice(file.indexOf('corpus/') + 7), async () => {
        const { conversations } = readTranscript(readFileSync(file, 'utf8'), file);
        for (const conversation of conversations) {
          const r = await replayConversation(conversation, { pipeline, modelWindow: SMALL_WINDOW });
          overBefore += r.perTurn.filter((t) => t.overBefore).length;
          guardEvents += r.guard.events;
          expect(
            r.perTurn.filter((t) => t.overAfter),
            'requests over the window',
          ).toEqual([]);
          expect(r.guard.unfit).toBe(0);
          expect(r.recallFailures).toEqual([]);
          // The prefix moves only at mask and guard batches, which are counted apart.
          expect(r.prefixChanges).toEqual([]);
          expect(r.perTurn.filter((t) => t.prefixRewritten).length).toBeLessThanOrEqual(r.maskedInPrefix);
        }
      });
    }
    afterAll(() => {
      // The window must have been small enough to matter, and the guard must have had work.
      expect(overBefore).toBeGreaterThan(100);
      expect(guardEvents).toBeGreaterThan(5);
    });
  },
);

if (!corpusAvailable) {
  describe('corpus', () => {
    it.skip(CORPUS_MISSING, () => {});
  });
}
