import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolvePipeline } from '../pipeline/config.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { readTranscript } from './readers/index.js';
import { replayConversation } from './replay-conversation.js';

describe.skipIf(!corpusAvailable)('replaying every corpus transcript with the balanced preset', () => {
  const pipeline = resolvePipeline({ preset: 'balanced' });
  for (const file of corpusFiles()) {
    it(file.slice(file.indexOf('corpus/') + 7), async () => {
      const { conversations } = readTranscript(readFileSync(file, 'utf8'), file);
      for (const conversation of conversations) {
        const r = await replayConversation(conversation, { pipeline });
        expect(r.violations, 'results over budget').toEqual([]);
        expect(r.recallFailures, 'markers that do not recall their original').toEqual([]);
        expect(r.prefixChanges, 'cached prefix rewritten between turns').toEqual([]);
        expect(r.tokensAfter).toBeLessThanOrEqual(r.tokensBefore);
      }
    });
  }
});

if (!corpusAvailable) {
  describe('corpus', () => {
    it.skip(CORPUS_MISSING, () => {});
  });
}
