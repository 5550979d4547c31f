import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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

if (!corpusAvailable) {
  describe('corpus', () => {
    it.skip(CORPUS_MISSING, () => {});
  });
}
