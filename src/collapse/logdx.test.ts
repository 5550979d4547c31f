import { describe, expect, it } from 'vitest';
import { LOGDX_DIR, logdxCases, logdxScores, recallOf } from '../test-support/logdx.js';

// LogDx-CI's cases are fetched by `npm run logdx` (never committed); without them this skips.
const cases = logdxCases();
if (cases.length === 0)
  console.warn(`skipping the LogDx measurement: no cases in ${LOGDX_DIR} (run npm run logdx)`);

describe.skipIf(cases.length === 0)('LogDx-CI: signals a person verified in real CI failure logs', () => {
  for (const budget of [1000, 2000])
    it(`keeps more signals than LogDx's grep and head+tail cut to ${budget} tokens, never over it`, async () => {
      const scores = await logdxScores(cases, budget, ['spillway', 'head+tail', 'grep -B3 -A8']);
      const kept = (method: string) => recallOf(scores.filter((s) => s.method === method)).kept;
      expect(scores.filter((s) => s.tokens > budget).map((s) => `${s.method} ${s.id} ${s.tokens}`)).toEqual(
        [],
      );
      expect(kept('spillway')).toBeGreaterThan(kept('grep -B3 -A8'));
      expect(kept('spillway')).toBeGreaterThan(kept('head+tail'));
    });
});
