import type { SignalPack } from '../rule.js';

/** Python: tracebacks and their frames, pytest's sections, summaries and `E` lines, logging. */
export const python: SignalPack = {
  name: 'python',
  rules: [
    {
      id: 'python/traceback',
      kind: 'exception',
      pattern: /^\s*Traceback \(most recent call last\)/,
      marks: ['raceback'],
      middle: ['Traceback'],
      examples: ['Traceback (most recent call last):'],
      counterExamples: ['the traceback above shows it'],
    },
    {
      id: 'python/pytest-raised',
      kind: 'exception',
      // Where pytest says an exception was raised: tests/test_pay.py:88: AssertionError.
      pattern: /^\s*\S+:\d+: (?:[\w.]+\.)?\w*(?:Error|Exception)\s*$/,
      marks: ['rror', 'xception'],
      middle: [':\\d+: [\\w.]*(?:Error|Exception)\\s*(?:\\n|$)'],
      examples: [
        'tests/test_pay.py:88: AssertionError',
        '/usr/lib/python3.11/json/decoder.py:353: JSONDecodeError',
      ],
      counterExamples: ['tests/test_pay.py:88: in test_charge'],
    },
    {
      id: 'python/pytest-section',
      kind: 'failure',
      pattern: /^\s*=+ (?:FAILURES|ERRORS) =+/,
      marks: ['FAIL', 'RROR'],
      examples: [
        '=================================== FAILURES ===================================',
        '==== ERRORS ====',
      ],
      counterExamples: ['=== warnings summary ==='],
    },
    {
      id: 'python/pytest-e-line',
      kind: 'failure',
      // pytest's explanation of a failed assertion: E and at least two spaces.
      pattern: /^\s*E\s{2,}\S/,
      marks: ['^E {2}'],
      examples: ['E       assert 1 == 2', 'E    +  where 0 = total([])'],
      counterExamples: ['E: Unable to locate package left-pad'],
    },
    {
      id: 'python/test-summary',
      kind: 'summary',
      // unittest's Ran N tests and OK (...)/FAILED (...); pytest's ==== 1 failed, 2 passed in 0.1s ====.
      pattern: /^\s*(?:Ran \d+ tests?|=+ .*\b(?:passed|failed|errors?)\b.*=+|(?:OK|FAILED) \()/,
      marks: ['Ran \\d', 'passed', 'ail(?:ed|ure|ing)', 'rror', 'OK \\(', 'FAIL'],
      examples: ['Ran 412 tests in 3.021s', '======== 2 passed in 0.12s ========', 'OK (skipped=2)'],
      counterExamples: ['Ranked 412 tests'],
    },
    {
      id: 'python/mypy-error',
      kind: 'error',
      // mypy's finding: path, line (and column), `error:`, the message and its code. Its own rule,
      // so that a type checker's hundreds of findings wait behind the first few of each tool.
      pattern: /^\s*[\w./\\-]+\.pyi?:\d+(?::\d+)?: error: \S/,
      marks: ['py:\\d', 'pyi:\\d'],
      middle: ['py:\\d+(?::\\d+)?: error', 'pyi:\\d+(?::\\d+)?: error'],
      examples: [
        // python/mypy#17746, mozilla/bigquery-etl#7012, mypy's docs on error codes.
        'a.py:3: error: Module has no attribute "futures"  [attr-defined]',
        'bigquery_etl/backfill/parse.py:158: error: Item "None" of "Optional[str]" has no attribute "validator"  [union-attr]',
        'pandas/compat/pyarrow.py:69: error: Call to untyped function "fill_null" in typed context  [no-untyped-call]',
        'prog.py:12:5: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]',
      ],
      counterExamples: ['csaba.py:3: note: Revealed local types are:', 'a.py:3: Module has no attribute'],
    },
    {
      id: 'python/pyright-error',
      kind: 'error',
      // pyright's and basedpyright's CLI: indented under the file, path:line:col - error: message (rule).
      pattern: /^\s*\S+\.pyi?:\d+:\d+ - error: \S/,
      marks: [' - error'],
      middle: [' - error'],
      examples: [
        '  /home/runner/work/pandas/pandas/pandas/io/orc.py:44:28 - error: "orc" is not a known attribute of module "pyarrow" (reportAttributeAccessIssue)',
        '  /repo/core/views.py:300:17 - error: Cannot access member "xyz" for type "HttpRequest" (reportGeneralTypeIssues)',
        '  /src/app/main.py:3:8 - error: Import "requests" could not be resolved (reportMissingImports)',
      ],
      counterExamples: ['  /src/app/main.py:3:8 - warning: Import "yaml" could not be resolved from source'],
    },
    {
      id: 'python/logging-critical',
      kind: 'error',
      pattern: /^CRITICAL:[\w.-]*:/,
      marks: ['CRITICAL'],
      middle: ['CRITICAL'],
      examples: ['CRITICAL:root:out of memory'],
      counterExamples: [
        '**CRITICAL**: Follow the Zero-Simplification Rule',
        '### CRITICAL: keep the session id',
      ],
    },
    {
      id: 'python/frame',
      kind: 'frame',
      pattern: /^\s*File "[^"]+", line \d+/,
      marks: ['File "'],
      examples: ['  File "/app/pay.py", line 88, in charge'],
      counterExamples: ['File "notes.txt" saved'],
    },
  ],
  libraryPaths: [
    {
      id: 'python/packages',
      pattern: '[\\\\/](?:site|dist)-packages[\\\\/]',
      examples: ['  File "/usr/lib/python3/dist-packages/requests/api.py", line 59, in request'],
    },
    {
      id: 'python/stdlib',
      pattern: '[\\\\/]lib[\\\\/]python\\d',
      examples: ['  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode'],
    },
    {
      id: 'python/frozen',
      pattern: '<frozen ',
      examples: ['  File "<frozen runpy>", line 198, in _run_module_as_main'],
    },
  ],
};
