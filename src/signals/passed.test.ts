import { describe, expect, it } from 'vitest';
import { lineSignal } from './classify.js';
import { PASSED_RULES, passedTally, passedTest } from './passed.js';

describe('passed tests', () => {
  for (const rule of PASSED_RULES)
    it(`${rule.id}: reports its examples as passed and none of its counter-examples`, () => {
      for (const example of rule.examples) {
        expect(passedTest(example), example).toBe(true);
        // The error word in a passed test's name is no fault.
        expect(lineSignal(example), example).toBeUndefined();
      }
      for (const counter of rule.counterExamples) expect(passedTest(counter), counter).toBe(false);
    });

  it('sees through a CI timestamp and colour codes', () => {
    const line =
      '2026-05-06T13:26:21.2941812Z     \x1b[32m✓\x1b[39m throws an error if no integrity found (7 ms)';
    expect(lineSignal(line)).toBeUndefined();
    // The same test failed is a failure.
    expect(lineSignal(line.replace('\x1b[32m✓', '\x1b[31m✗'))?.kind).toBe('failure');
  });
});

describe('a line named by the rule written for its message', () => {
  it('prefers a format rule under a timestamp to a generic rule the whole line matches', () => {
    const stamp = '2026-04-23T08:38:17.8953892Z ';
    expect(
      lineSignal(
        `${stamp}pandas/compat/pyarrow.py:69: error: Call to untyped function "fill_null"  [no-untyped-call]`,
      )?.id,
    ).toBe('python/mypy-error');
    expect(lineSignal(`${stamp}======== 2 passed in 0.12s ========`)?.id).toBe('python/test-summary');
    expect(
      lineSignal(
        '  /home/runner/work/pandas/pandas/pandas/io/orc.py:\x1b[33m44\x1b[39m:\x1b[33m28\x1b[39m - \x1b[31merror\x1b[39m: "orc" is not a known attribute of module "pyarrow" (reportAttributeAccessIssue)',
      )?.id,
    ).toBe('python/pyright-error');
  });
});

describe('tallies of passes', () => {
  it('tells a tally of passes from one that counts a fault', () => {
    // jest (pnpm's CI), pytest, libtest, mocha.
    for (const line of [
      'Tests:       16 passed, 16 total',
      'Test Suites: 2 passed, 2 total',
      '======== 1080 passed, 44 skipped in 451.20s ========',
      'test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
      '  41 passing (3s)',
    ])
      expect(passedTally(line), line).toBe(true);
    for (const line of [
      'Tests:       1 failed, 41 passed, 42 total',
      '= 1 failed, 1080 passed, 44 skipped in 451.20s =',
      'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out',
      '3 passed, 2 errors in 0.41s',
    ])
      expect(passedTally(line), line).toBe(false);
  });
});
