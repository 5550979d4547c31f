import { describe, expect, it } from 'vitest';
import { CORPUS_MISSING, corpusAvailable } from '../../../test-support/corpus.js';
import { corpusResultTexts, fidelity } from '../../../test-support/fidelity.js';
import {
  hugeProgramOutputs,
  PROGRAMS,
  PROGRAMS_MISSING,
  programOutputs,
} from '../../../test-support/program-outputs.js';

const allPrograms = Object.values(PROGRAMS).every(Boolean);
if (!allPrograms) console.warn(`skipping the real-program fidelity test: ${PROGRAMS_MISSING}`);
if (!corpusAvailable) console.warn(`skipping the corpus fidelity test: ${CORPUS_MISSING}`);

describe('what the model sees after collapse', () => {
  it.skipIf(!allPrograms)(
    'keeps at least 95% of the lines that matter in real program outputs at 2,000 tokens, filling 90% of the budget',
    async () => {
      const outputs = programOutputs();
      expect(outputs.length).toBe(12);
      for (const budget of [1000, 2000]) {
        const { spillway, 'head+tail': headTail } = await fidelity(
          outputs.map((o) => o.text),
          budget,
        );
        if (!spillway || !headTail) throw new Error('methods missing');
        expect(spillway.outputs).toBe(12);
        expect(spillway.over).toBe(0);
        expect(spillway.fill / spillway.outputs).toBeGreaterThanOrEqual(0.9);
        expect(spillway.kept / spillway.needles).toBeGreaterThan(headTail.kept / headTail.needles);
        if (budget === 2000) expect(spillway.kept / spillway.needles).toBeGreaterThanOrEqual(0.95);
      }
    },
  );

  it.skipIf(!PROGRAMS.python3)(
    'keeps the failure and its traceback from the middle of a 13 MB real service log, at every depth',
    async () => {
      const outputs = hugeProgramOutputs();
      expect(outputs.map((o) => o.text.length > 12 * 1024 * 1024)).toEqual([true, true, true]);
      const { spillway, 'head+tail': headTail } = await fidelity(
        outputs.map((o) => o.text),
        2000,
      );
      if (!spillway || !headTail) throw new Error('methods missing');
      expect(spillway.over).toBe(0);
      expect(spillway.kept / spillway.needles).toBeGreaterThanOrEqual(0.95);
      expect(spillway.kept).toBeGreaterThan(headTail.kept);
    },
    120_000,
  );

  it.skipIf(!corpusAvailable)(
    'keeps more of them than head+tail and than 50/50 at 4 bytes a token on the corpus, never over budget',
    async () => {
      const texts = corpusResultTexts(4000);
      expect(texts.length).toBeGreaterThan(100);
      const byMethod = await fidelity(texts, 2000);
      const share = (name: string) => (byMethod[name]?.kept ?? 0) / (byMethod[name]?.needles ?? 1);
      expect(byMethod.spillway?.over).toBe(0);
      expect(share('spillway')).toBeGreaterThan(share('head+tail'));
      expect(share('spillway')).toBeGreaterThan(share('50/50 at 4 B/token'));
      expect((byMethod.spillway?.fill ?? 0) / (byMethod.spillway?.outputs ?? 1)).toBeGreaterThanOrEqual(0.9);
    },
  );
});
