import type { SignalPack } from '../rule.js';

/** JavaScript and TypeScript: npm, uncaught errors, test runners (vitest, jest, mocha), tsc, bundlers. */
export const node: SignalPack = {
  name: 'node',
  rules: [
    {
      id: 'node/uncaught',
      kind: 'exception',
      pattern: /^\s*(?:Uncaught |Unhandled )/,
      marks: ['ncaught', 'nhandled'],
      middle: ['Uncaught', 'Unhandled'],
      examples: ['Uncaught TypeError: x is not a function', 'Unhandled Rejection (Error): boom'],
      counterExamples: ['uncaught by the handler'],
    },
    {
      id: 'node/failed-to-compile',
      kind: 'failure',
      pattern: /^\s*(?:Failed to compile|⎯+ Failed Tests \d)/,
      marks: ['ail(?:ed|ure|ing)'],
      examples: ['Failed to compile.', '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯'],
      counterExamples: ['Failed: 0'],
    },
    {
      id: 'node/expected',
      kind: 'failure',
      // An assertion's report: Expected: 7, Received: 6; expected 6 to be 7.
      pattern: /^\s*Expected\b.*\b(?:to|but)\b/,
      marks: ['xpected'],
      examples: ['Expected "6" to be "7"', 'Expected 3 arguments, but got 2.'],
      counterExamples: ['Expected: 7'],
    },
    {
      id: 'node/jest-failed-test',
      kind: 'failure',
      // jest's block for each failed test: `●` and its describe › test path (not its console
      // output, nor a config warning).
      pattern: /^\s*● (?!Console\b|[\w ]*Warning:)\S/,
      marks: ['● '],
      middle: ['● '],
      examples: [
        // JeanPaiva42/jest-an-issue#47, telus-labs/tds-core#272.
        '  ● example tests › test that always fails',
        '  ● <OverviewBlock /> › does not render a header if header is not passed in via props',
        '  ● Test suite failed to run',
      ],
      counterExamples: ['  ● Console', '● Validation Warning:'],
    },
    {
      id: 'node/expect-values',
      kind: 'failure',
      // expect's (jest's, vitest's) report of what a matcher got: `Expected: 1000`, `Received: 100`,
      // `Expected length: 3`, `Received number of calls: 0`. The values are what a fix needs.
      pattern:
        /^\s*(?:Expected|Received)(?: (?:value|length|substring|pattern|path|constructor|message|string|number of calls))?: +\S/,
      marks: ['xpected', 'eceived'],
      middle: ['Expected', 'Received'],
      examples: [
        // postlight/ci-failed-test-reporter#3, JeanPaiva42/jest-an-issue#47, jest's own docs.
        'Expected: 1000',
        '    Received: false',
        '    Expected: "https://my-org.registry.example.com"',
        '    Received number of calls: 0',
        '    Expected length: 3',
      ],
      counterExamples: ['Expected value to be (using ===):', 'Received:', 'Expected a list of files'],
    },
    {
      id: 'node/npm-err',
      kind: 'error',
      pattern: /npm ERR!/,
      marks: ['ERR!'],
      middle: ['ERR!'],
      examples: ['npm ERR! code ERESOLVE'],
    },
    {
      id: 'node/test-summary',
      kind: 'summary',
      // jest's and vitest's Tests:/Test Files/Test Suites:, mocha's passing and failing.
      pattern: /^\s*(?:Tests?:|Test Files|Test Suites:|\d+ (?:passing|failing|pending)\b)/,
      marks: ['Tests?[: ]', 'passing', 'pending', 'ail(?:ed|ure|ing)'],
      examples: ['Test Files  2 passed (2)', 'Tests:       42 passed, 42 total', '  41 passing (3s)'],
      counterExamples: ['Testing the cart'],
    },
    {
      id: 'node/tap-summary',
      kind: 'summary',
      pattern: /^# (?:tests|pass|fail|cancelled) \d+\s*$/,
      marks: ['^# (?:tests|pass|fail|cancelled) '],
      examples: ['# pass 411', '# tests 412'],
      counterExamples: ['# pass the salt'],
    },
    {
      id: 'node/tsc-found',
      kind: 'summary',
      pattern: /^\s*Found \d+ errors?/,
      marks: ['Found \\d'],
      // (A count of errors, `Found 3 errors in 2 files.`, is a verdict: core/error-count.)
      examples: ['Found 0 errors. Watching for file changes.'],
      counterExamples: ['Found the bug'],
    },
  ],
  libraryPaths: [
    {
      id: 'node/packages',
      pattern: '[\\\\/]node_modules[\\\\/]',
      examples: ['    at Object.<anonymous> (/app/node_modules/express/lib/router/index.js:284:7)'],
    },
    {
      id: 'node/builtins',
      pattern: '\\bnode:',
      examples: ['    at Module._compile (node:internal/modules/cjs/loader:1256:14)'],
    },
  ],
};
