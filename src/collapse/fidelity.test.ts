import { describe, expect, it } from 'vitest';
import { CORPUS_MISSING, corpusAvailable } from '../test-support/corpus.js';
import { corpusResultTexts, fidelity, METHODS } from '../test-support/fidelity.js';
import {
  failureLines,
  hugeProgramOutputs,
  PROGRAMS,
  PROGRAMS_MISSING,
  programOutputs,
} from '../test-support/program-outputs.js';
import { getTokenizer } from '../text/tokenizers/index.js';

const o200k = getTokenizer('o200k');

const allPrograms = Object.values(PROGRAMS).every(Boolean);
if (!allPrograms) console.warn(`skipping the real-program fidelity test: ${PROGRAMS_MISSING}`);
if (!corpusAvailable) console.warn(`skipping the corpus fidelity test: ${CORPUS_MISSING}`);

describe('what the model sees after collapse', () => {
  it.skipIf(!allPrograms)(
    'keeps at least 95% of the lines that matter in real program outputs at 2,000 tokens, filling 90% of the budget (needs python3 with pytest, go, cargo)',
    async () => {
      const outputs = programOutputs();
      expect(outputs.length).toBe(24);
      for (const budget of [1000, 2000]) {
        const { spillway, 'head+tail': headTail } = await fidelity(
          outputs.map((o) => o.text),
          budget,
        );
        if (!spillway || !headTail) throw new Error('methods missing');
        expect(spillway.outputs).toBe(24);
        expect(spillway.over).toBe(0);
        expect(spillway.fill / spillway.outputs).toBeGreaterThanOrEqual(0.9);
        expect(spillway.kept / spillway.needles).toBeGreaterThan(headTail.kept / headTail.needles);
        if (budget === 2000) expect(spillway.kept / spillway.needles).toBeGreaterThanOrEqual(0.95);
      }
    },
    // 24 real programs (make and gcc, go test, cargo test, pytest) build and run first.
    300_000,
  );

  it.skipIf(!PROGRAMS.python3)(
    'keeps the failure and its traceback from the middle of a 12 MB real output, at every depth (needs python3)',
    async () => {
      const outputs = hugeProgramOutputs();
      expect(outputs.map((o) => o.text.length > 11 * 1024 * 1024)).toEqual([true, true, true]);
      for (const { text, depth } of outputs) {
        const failure = failureLines(text);
        expect(failure.length).toBeGreaterThanOrEqual(5);
        expect(failure.at(-1)).toMatch(/^FileNotFoundError: /);
        for (const budget of [1000, 2000]) {
          const kept = await METHODS.spillway?.(text, budget);
          const headTail = await METHODS['head+tail']?.(text, budget);
          expect(o200k.count(kept ?? ''), `${depth} at ${budget}`).toBeLessThanOrEqual(budget);
          expect(
            failure.filter((l) => kept?.includes(l)),
            `${depth} at ${budget}`,
          ).toEqual(failure);
          expect(failure.filter((l) => headTail?.includes(l))).toEqual([]);
        }
      }
    },
    120_000,
  );

  it.skipIf(!corpusAvailable)(
    'keeps more of them than head+tail and than 50/50 at 4 bytes a token on the corpus, never over budget (needs ../shared/corpus)',
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
