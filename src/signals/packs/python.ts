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
