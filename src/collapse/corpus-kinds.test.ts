import { describe, expect, it } from 'vitest';
import { CORPUS_MISSING, corpusAvailable } from '../test-support/corpus.js';
import { corpusResults, fidelityByKind } from '../test-support/fidelity.js';

if (!corpusAvailable) console.warn(`skipping the corpus by kind: ${CORPUS_MISSING}`);

describe.skipIf(!corpusAvailable)('the corpus by kind of tool (needles: the lines that matter)', () => {
  const results = corpusAvailable ? corpusResults(4000) : [];
  // Codex's 50/50 at 4 bytes a token is compared as Codex sends it, often over the budget by a
  // real count; held to the budget it is head and tail by tokens (the head+tail column).
  for (const budget of [1000, 2000])
    it(`no kind keeps fewer at ${budget} tokens than head+tail held to the budget`, async () => {
      const rows = await fidelityByKind(results, budget);
      expect(rows.length).toBeGreaterThan(3);
      for (const row of rows) {
        expect(row.spillway, `${row.kind}: spillway against head+tail`).toBeGreaterThanOrEqual(row.headTail);
        // Where Codex's cut stayed within the budget on every output, it is no better either.
        if (row.codexOver === 0)
          expect(row.spillway, `${row.kind}: against 50/50`).toBeGreaterThanOrEqual(row.codex);
      }
    }, 120_000);
});
