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
      examples: ['Found 0 errors. Watching for file changes.', 'Found 3 errors in 2 files.'],
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
