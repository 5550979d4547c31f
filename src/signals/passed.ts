/**
 * Lines that report a test that passed or was skipped. The error words in them are the test's
 * name or the reason it was skipped (`✓ throws an error if no integrity found`, `... ignored,
 * differences in object file formats causes errors`), not a fault: no signal rule names such a
 * line. Data, each with real lines from test runners' output.
 */

/** One way a test runner reports a passed test. */
export interface PassedRule {
  id: string;
  /** Tried on a line's message (timestamp and colour codes taken off). */
  pattern: RegExp;
  examples: readonly string[];
  counterExamples: readonly string[];
}

export const PASSED_RULES: readonly PassedRule[] = [
  {
    id: 'check-mark',
    // jest, vitest and mocha in their verbose reporters (√ where the console has no ✓).
    pattern: /^\s*[✓✔√] \S/,
    examples: [
      '    ✓ throws an error if no integrity found (7 ms)',
      '  ✔ rejects with an error when the file is missing',
      '    √ reports a parse error (3 ms)',
    ],
    counterExamples: ['    ✕ throws an error if no integrity found (7 ms)', '  ✗ charges the card'],
  },
  {
    id: 'pytest-passed',
    // pytest -v, with xdist's worker and progress before it or the percentage after.
    pattern: /^(?:\[gw\d+\] \[ *\d+%\] PASSED \S+::\S|\S+::\S.* PASSED(?: +\[ *\d+%\])?\s*$)/,
    examples: [
      'tests/test_cli.py::test_error_on_missing_config PASSED                  [ 12%]',
      '[gw1] [ 35%] PASSED tests/functional/test_install.py::test_install_error_reporting',
    ],
    counterExamples: ['tests/test_cli.py::test_error_on_missing_config FAILED  [ 12%]'],
  },
  {
    id: 'go-pass',
    pattern: /^\s*--- (?:PASS|SKIP): \S/,
    examples: ['    --- PASS: TestParseError/empty_input (0.00s)', '--- SKIP: TestDialError (0.00s)'],
    counterExamples: ['--- FAIL: TestParseError (0.00s)'],
  },
  {
    id: 'cargo-ok',
    // libtest, and rustc's compiletest with the test's mode before its path.
    pattern: /^\s*test (?:\[[\w-]+\] )?\S+ \.\.\. (?:ok$|ignored\b)/,
    examples: [
      'test parser::tests::reports_error_on_eof ... ok',
      'test [ui] tests/ui/type-alias-impl-trait/error-in-impl.rs ... ok',
      'test [run-make] tests/run-make/include-all-symbols-linking ... ignored, ignored when the target family is wasm (differences in object file formats causes errors in the llvm_objdump step.)',
    ],
    counterExamples: ['test parser::tests::reports_error_on_eof ... FAILED'],
  },
];

const PASSED = new RegExp(PASSED_RULES.map((r) => `(?:${r.pattern.source})`).join('|'));

/**
 * Whether a message reports a test that passed.
 *
 * @example
 * passedTest('  ✓ throws an error if no integrity found (7 ms)'); // true
 */
export function passedTest(message: string): boolean {
  return PASSED.test(message);
}

// A tally that counts passes and no fault: `Tests: 16 passed, 16 total`, `test result: ok.`
const PASS_COUNT = /\b\d+ (?:passed|passing)\b|^\s*test result: ok\./;
const FAULT_COUNT = /\b[1-9]\d* (?:failed|failing|failures?|errors?|broken|crashed)\b|\bFAIL/;

/**
 * Whether a summary counts only passes (and skips): in a log of many test runs, the tallies of
 * the ones that passed are no news beside a fault, and wait behind the findings.
 *
 * @example
 * passedTally('Tests:       16 passed, 16 total'); // true
 * passedTally('Tests:       1 failed, 41 passed, 42 total'); // false
 */
export function passedTally(message: string): boolean {
  return PASS_COUNT.test(message) && !FAULT_COUNT.test(message);
}
