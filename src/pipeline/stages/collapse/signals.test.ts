import { describe, expect, it } from 'vitest';
import { jsonRecords, keyValueLog, podTable } from '../../../test-support/rare-fixtures.js';
import { getTokenizer } from '../../../text/tokenizers/index.js';
import { selectLines } from './lines.js';

const o200k = getTokenizer('o200k');

describe('collapse keeps what stands out, with no rule for it', () => {
  it('keeps the crash-looping pod, the degraded state and the odd JSON record with every format rule switched off', () => {
    for (const budget of [1000, 2000]) {
      for (const { text, needle } of [podTable(317), keyValueLog(2_871), jsonRecords(6_203)]) {
        const options = {
          maxTokens: budget,
          headLines: 20,
          tailLines: 20,
          tokenizer: o200k,
          id: 'sw_0123456789abcdef',
        };
        const withoutRules = selectLines(text, { ...options, signals: { rules: false } });
        expect(withoutRules?.text, `${needle} at ${budget}`).toContain(needle);
        expect(withoutRules?.tokens).toBeLessThanOrEqual(budget);
        // And without rarity either, it is lost: rarity is what finds it.
        const neither = selectLines(text, { ...options, signals: { rules: false, rarity: false } });
        expect(neither?.text, `${needle} at ${budget}, no signal`).not.toContain(needle);
      }
    }
  });
});
