import { describe, expect, it } from 'vitest';
import { LOGHUB_DIR, loghubLogs, loghubRecall } from '../test-support/loghub.js';

// Loghub's samples are fetched by `npm run loghub` (never committed); without them this skips.
const logs = loghubLogs();
if (logs.length === 0)
  console.warn(`skipping the loghub measurement: no samples in ${LOGHUB_DIR} (run npm run loghub)`);

describe.skipIf(logs.length === 0)("loghub's labelled lines (logpai/loghub, 2,000-line samples)", () => {
  for (const kind of ['alerts', 'errors'] as const)
    for (const budget of [1000, 2000])
      it(`keeps at least as many ${kind} as head+tail and Codex's 50/50 at ${budget} tokens`, async () => {
        const r = await loghubRecall(logs, kind, budget);
        expect(r.labelled).toBeGreaterThan(0);
        const spillway = r.kept.spillway ?? 0;
        expect(spillway).toBeGreaterThanOrEqual(r.kept['head+tail'] ?? 0);
        expect(spillway).toBeGreaterThanOrEqual(r.kept['50/50 at 4 B/token'] ?? 0);
      });
});
