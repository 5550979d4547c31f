import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PRESET_NAMES, resolveEngineConfig } from '../engine/config.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { readTranscript } from './readers/index.js';
import { replayConversation } from './replay-conversation.js';
import { replayCost, requestCost } from './replay-cost.js';

describe.skipIf(!corpusAvailable)('replaying every corpus transcript with every preset', () => {
  const configs = PRESET_NAMES.map((preset) => resolveEngineConfig({ preset }));
  for (const file of corpusFiles()) {
    it(file.slice(file.indexOf('corpus/') + 7), async () => {
      const { conversations } = readTranscript(readFileSync(file, 'utf8'), file);
      for (const config of configs) {
        for (const conversation of conversations) {
          const r = await replayConversation(conversation, { config });
          const where = `${config.preset}: `;
          expect(r.violations, `${where}results over budget`).toEqual([]);
          expect(r.recallFailures, `${where}markers that do not recall their original`).toEqual([]);
          expect(r.prefixChanges, `${where}cached prefix rewritten between turns`).toEqual([]);
          expect(r.tokensAfter).toBeLessThanOrEqual(r.tokensBefore);
          // History is rewritten only when it pays: no preset costs a conversation more than off.
          const cost = replayCost(r);
          expect(cost.usdWith, `${where}billed input cost with spillway`).toBeLessThanOrEqual(
            cost.usdWithout + 1e-9,
          );
          expect(requestCost(r.perTurn, 'after'), `${where}cost units`).toBeLessThanOrEqual(
            requestCost(r.perTurn, 'before') + 1e-6,
          );
        }
      }
    });
  }
});

/**
 * The window a transcript is replayed in: small enough that its largest requests exceed it
 * unguarded, large enough that what is not a tool result (its other text, plus room for ten
 * recent results) fits, since only tool results can be shrunk. Undefined when no such window
 * exists (the transcript never comes near it).
 */
function smallWindow(perTurn: { before: number; other: number }[]): number | undefined {
  const peak = Math.max(0, ...perTurn.map((t) => t.before + t.other));
  const limit = Math.max(12_000, Math.ceil(Math.max(0, ...perTurn.map((t) => t.other)) * 1.3) + 12_000);
  if (peak <= limit) return undefined;
  // inputLimit(window) = window - 8,192 (output) - max(1,024, 2%): solved for the window.
  return Math.ceil((limit + 8_192) / 0.98) + 1;
}
let overBefore = 0;
let guardEvents = 0;
let replayed = 0;

describe.skipIf(!corpusAvailable)('every corpus transcript in a window it outgrows, balanced', () => {
  const config = resolveEngineConfig({ preset: 'balanced' });
  for (const file of corpusFiles()) {
    it(file.slice(file.indexOf('corpus/') + 7), async () => {
      const { conversations } = readTranscript(readFileSync(file, 'utf8'), file);
      for (const conversation of conversations) {
        const whole = await replayConversation(conversation, { config, modelWindow: 100_000_000 });
        const modelWindow = smallWindow(whole.perTurn);
        if (modelWindow === undefined) continue;
        replayed++;
        const r = await replayConversation(conversation, { config, modelWindow });
        overBefore += r.perTurn.filter((t) => t.overBefore).length;
        guardEvents += r.guard.events;
        expect(
          r.perTurn.filter((t) => t.overAfter),
          `requests over a ${modelWindow}-token window`,
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
    // The windows must have been small enough to matter, and the guard must have had work.
    expect(replayed).toBeGreaterThanOrEqual(10);
    expect(overBefore).toBeGreaterThan(100);
    expect(guardEvents).toBeGreaterThan(5);
  });
});

if (!corpusAvailable) {
  describe('corpus', () => {
    it.skip(CORPUS_MISSING, () => {});
  });
}
