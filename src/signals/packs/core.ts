import { caseless, wordNotInPath } from '../patterns.js';
import type { SignalPack } from '../rule.js';

/** What any program prints: the words error, fatal, failed, warning; exit statuses; counts. */
export const core: SignalPack = {
  name: 'core',
  rules: [
    {
      id: 'core/exception-name',
      kind: 'exception',
      // ValueError: ..., java.lang.NullPointerException: ..., a name alone on its line.
      pattern: /^\s*(?:[\w.$]+\.)?\w*(?:Error|Exception)(?::|\s*$| \[)/,
      marks: ['rror', 'xception'],
      middle: ['rror[:[)]', 'Exception'],
      examples: [
        'ValueError: invalid literal for int() with base 10',
        'java.lang.NullPointerException: Cannot invoke "String.length()"',
        'subprocess.CalledProcessError: RETURNED NON-ZERO EXIT STATUS 2',
      ],
      counterExamples: ['errors: 0', 'An Error occurred in the docs'],
    },
    {
      id: 'core/fail-verdict',
      kind: 'failure',
      pattern: /^\s*FAIL(?:ED|URE)?\b/,
      marks: ['FAIL'],
      middle: ['FAIL'],
      examples: [
        'FAIL src/pay.test.ts > charges the card',
        'FAILED tests/test_pay.py::test_charge - assert 0',
      ],
      counterExamples: ['FAILOVER complete'],
    },
    {
      id: 'core/cross-mark',
      kind: 'failure',
      pattern: /^\s*[✗✘×]\s/,
      marks: ['[✗✘×]'],
      examples: ['  ✗ charges the card', '  × refunds twice (3 ms)'],
      counterExamples: ['  ✓ charges the card (12 ms)'],
    },
    {
      id: 'core/tap-not-ok',
      kind: 'failure',
      pattern: /^\s*not ok\b/,
      marks: ['not ok'],
      examples: ['not ok 3 - charges the card'],
      counterExamples: ['ok 4 - refunds the card'],
    },
    {
      id: 'core/assertion',
      kind: 'failure',
      pattern: /^\s*(?:AssertionError|assert(?:ion)? failed)/,
      marks: ['ssert'],
      examples: ['assertion failed: left == right', 'assert failed: total > 0'],
      // (AssertionError is the name of an exception: core/exception-name.)
      counterExamples: ['asserting the invariant holds'],
    },
    {
      id: 'core/failed-word',
      kind: 'failure',
      // "failed" as a word (not 0 failed, failed: 0, nor in a file name), FAILED, FAILURE.
      pattern: new RegExp(
        `\\b(?:FAILED|FAILURE)\\b|(?<!\\b0 )${wordNotInPath('failed')}(?!\\s*[:=]?\\s*0\\b)`,
      ),
      marks: ['FAIL', 'ail(?:ed|ure|ing)'],
      middle: ['failed', 'FAIL'],
      examples: ['Build failed.', 'Tests:       1 failed, 41 passed, 42 total'],
      counterExamples: [
        'Failed: 0',
        '      337 /usr/lib/llvm-14/build/utils/lit/tests/googletest-discovery-failed.py',
        '     1176 /usr/lib/perf-core/scripts/perl/failed-syscalls.pl',
        "    toaster.error('Failed to load project users')",
      ],
    },
    {
      id: 'core/error-count',
      kind: 'failure',
      // A tool's tally of its errors is its verdict: it outranks the 9th of its findings (a type
      // checker's hundreds wait behind the first few; see collapse/rank.ts).
      pattern: /\b[1-9]\d* errors?\b(?: generated| in |,|\)|\.|\s*$)/,
      marks: ['rror'],
      middle: ['rrors?(?: generated| in |,|\\)|\\.|\\s*(?:\\n|$))'],
      examples: [
        // mypy (python/mypy#17746), pyright, ESLint, clang, javac.
        'Found 1 error in 1 file (checked 1 source file)',
        'Found 279 errors in 9 files (checked 1458 source files)',
        '69 errors, 0 warnings, 0 informations',
        '✖ 3 problems (3 errors, 0 warnings)',
        '2 errors generated.',
        '3 errors',
      ],
      counterExamples: ['Found 0 errors. Watching for file changes.', 'errors: 0', 'the 2 error-prone paths'],
    },
    {
      id: 'core/error-word',
      kind: 'error',
      // error: / Error: / ERROR / error[E0308]: / [error] as a word, not "0 errors" or "errors: 0".
      pattern: /(?:^|[\s[(:])(?:error|ERROR|Error)(?:\[[\w-]+\])?(?:[:!\]]|\s)(?!\s*[:=]?\s*0\b)/,
      marks: ['rror', 'RROR'],
      // A colour code after the word (tsc --pretty, ruff, cargo) hides the colon from the others.
      middle: ['rror[:[)]', 'ERROR', 'rror [A-Z]*\\d', 'rror\\x1b\\['],
      examples: [
        "src/pay.ts(88,11): error TS2345: Argument of type 'string' is not assignable",
        'src/pay.ts:88:11 - error TS2345: Argument of type',
        "main.c:12:5: error: expected ';' before 'return'",
        'make: *** [Makefile:12: build] Error 2',
        'error[E0308]: mismatched types',
        "\x1b[96msrc/nav.tsx\x1b[0m:\x1b[93m55\x1b[0m:\x1b[93m7\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS6196: \x1b[0m'ColorMode' is declared but never used.",
      ],
      counterExamples: ['errors: 0', '0 errors', "    toaster.error('Failed to load project users')"],
    },
    {
      id: 'core/fatal',
      kind: 'error',
      // Not in a flag (`--fatal`), a path or a compound (`non-fatal`).
      pattern: new RegExp(wordNotInPath('fatal|FATAL')),
      marks: ['atal', 'FATAL'],
      middle: ['fatal', 'FATAL'],
      examples: [
        'fatal: not a git repository (or any of the parent directories): .git',
        'FATAL: out of memory',
      ],
      counterExamples: ['non-fatalistic view', '    * --fatal', 'non-fatal warnings are shown'],
    },
    {
      id: 'core/exit-status',
      kind: 'exit',
      pattern: caseless(
        String.raw`\b(?:exit(?:ed)?(?: with)? (?:code|status)|exited with (?:[1-9]\d*|non-zero)|exit code|returned non-zero|Process finished with exit code|make: \*\*\*|Command failed|return code:? [1-9]\d*)\b`,
      ),
      marks: ['xit', 'XIT', 'make: ', 'ommand failed', 'non-zero', 'NON-ZERO', 'eturn code', 'ETURN CODE'],
      examples: [
        'Process finished with exit code 1',
        'The command "npm test" exited with 1.',
        'EXIT CODE: 2',
        'Command exited with non-zero status 1',
        // scripttest's result of a command (pip's and virtualenv's tests), under `Script result: CMD`.
        '  return code: 1',
      ],
      counterExamples: ['The command "npm test" exited with 0.', 'press q to exit', '  return code: 0'],
    },
    {
      id: 'core/counts',
      kind: 'summary',
      // 3 passed, 1 failed in 0.2s; 5 tests, 5 failures.
      pattern: /\b[1-9]\d* (?:passed|failed|skipped|errors?)(?:,| in |\s*$)|\b\d+ tests?, \d+ failures?\b/,
      marks: ['passed', 'ail(?:ed|ure|ing)', 'skipped', 'rror'],
      examples: ['5 tests, 5 failures', '1 doctest, 12 tests, 0 failures', '12 passed, 3 skipped in 0.41s'],
      counterExamples: ['0 errors'],
    },
    {
      id: 'core/warning-word',
      kind: 'warning',
      // warning, WARN, deprecated as a word not in a path; a word ending in Warning
      // (DeprecationWarning): its start is looked for behind "Warning", once that is found.
      pattern: new RegExp(
        `${wordNotInPath('warn(?:ing)?|WARN(?:ING)?|[Dd]eprecat(?:ed|ion)')}|Warning\\b(?![-_/]|\\.\\w)(?<=(?:^|[^-_/.\\w])\\w*Warning)`,
      ),
      marks: ['arn', 'ARN', 'eprecat'],
      // (A deprecation said without "warn" is found at the ends only.)
      middleWords: ['warn', 'Warn', 'WARN'],
      examples: [
        'main.c:7:9: warning: unused variable ‘x’ [-Wunused-variable]',
        'npm WARN deprecated inflight@1.0.6: This module is not supported',
        "(node:4242) Warning: Accessing non-existent property 'x' of module exports",
        '/app/db.py:3: DeprecationWarning: pkg_resources is deprecated as an API',
        'Warning: unused import',
      ],
      counterExamples: [
        'from lib/RuntimeWarning import x',
        '     1750 /usr/include/llvm-c-14/llvm-c/Deprecated.h',
        '  src/log/warn.ts',
        '    logger.warn("retrying the upload");',
      ],
    },
    {
      id: 'core/at-frame',
      kind: 'frame',
      // `at` frames of JavaScript, the JVM and .NET.
      pattern: /^\s*at\s+\S.*(?::\d+|:line \d+|\(.*\))\)?\s*$/,
      marks: ['at\\s'],
      examples: [
        '    at charge (/app/src/pay.js:88:11)',
        '    at com.shop.Pay.charge(Pay.java:88)',
        '   at Shop.Cart.Total(List`1 items, Int32 n) in /src/Shop/Cart.cs:line 42',
        'at\tcharge (/app/src/pay.js:88:11)',
      ],
      counterExamples: ['at last the build is green'],
    },
    {
      id: 'core/file-line-col',
      kind: 'diagnostic',
      // file.ext:12:5 or file.ext(12,5): a compiler's or a linter's finding.
      pattern: /\.[A-Za-z0-9]{1,10}(?::\d+:\d+|\(\d+,\d+\))/,
      marks: [':\\d+:\\d+', '\\(\\d+,\\d+\\)'],
      examples: ['src/pay.ts:88:11  Unexpected any. Specify a different type'],
      counterExamples: ['  compiled module-12.ts in 4 ms'],
    },
    {
      id: 'core/file-line-in-words',
      kind: 'diagnostic',
      // Perl's warnings and dies (at shop.pl line 7.), Terraform's `on main.tf line 12, in ...`.
      pattern: /\b(?:at|on) \S+\.[A-Za-z]{1,10} line \d+\b/,
      marks: ['ine \\d'],
      examples: [
        'Use of uninitialized value $x in concatenation (.) or string at shop.pl line 7.',
        '│   on main.tf line 12, in resource "aws_instance" "web":',
      ],
      counterExamples: ['Read line 12 of the config'],
    },
  ],
};
