/**
 * The cheap first passes of line importance: regexes that find the lines a rule of
 * line-kind.ts might match, so only those lines are classified. Both are global and
 * shared; a caller sets lastIndex before each search.
 */

import { anyOf } from './any-of.js';

// The one level field of a structured log, in JSON or logfmt, with the first letters of the
// levels a rule takes (error and above in SEVERE, warnings too in CANDIDATE).
const levelMark = (initials: string, numbers: string) =>
  `(?:el|l|erity)(?:"\\s*:\\s*(?:"[${initials}]|[${numbers}]0\\b)|="?[${initials}])`;

/**
 * The first pass: every line a rule can match contains one of these marks (case as written;
 * the test "finds every line a rule matches" holds it to that). Each mark starts with a literal
 * character where it can, so anyOf can group it.
 *
 * @example
 * CANDIDATE.lastIndex = 0;
 * CANDIDATE.exec('ok\nsrc/a.ts:3:7 - error TS2322')?.index; // 11 (its ':3:7')
 */
export const CANDIDATE = anyOf(
  [
    'rror',
    'RROR',
    'ERR!',
    'FAIL',
    'ail(?:ed|ure|ing)',
    'xception',
    'raceback',
    'anic',
    'atal',
    'FATAL',
    'ssert',
    'xpected',
    'arn',
    'ARN',
    'eprecat',
    'xit',
    'XIT',
    'Killed',
    'bort',
    'egmentation',
    'dumped',
    'illegal instruction',
    'not found',
    'No such',
    'denied',
    'undefined reference',
    'Caused by',
    'ncaught',
    'nhandled',
    'make: ',
    'ommand failed',
    'non-zero',
    'NON-ZERO',
    'passed',
    'passing',
    'pending',
    'skipped',
    'Tests?[: ]',
    'Ran \\d',
    'test result',
    'OK \\(',
    'BUILD',
    'Found \\d',
    'generated',
    'could not',
    '[✗✘×]',
    'not ok',
    '--- ',
    '\\+\\+\\+ ',
    '@@ -',
    'diff --git',
    ':\\d+:\\d+',
    '\\(\\d+,\\d+\\)',
    '--> ',
    'at\\s',
    'File "',
    '0x[0-9a-f]',
    '^\\t/',
    ":\\d+:in [`']",
    '\\.(?:exs?|erl):\\d',
    '\\*\\* (?:\\(|exception)',
    '\\(\\d+\\): ',
    '^\\s*\\d+\\) test ',
    '\\.go:\\d+: ',
    'ine \\d',
    'BackOff',
    'ErrImagePull',
    'ContainerStatusUnknown',
    'Evicted',
    'Restarting \\(',
    '^E {2}',
    '^E: ',
    'CONFLICT',
    'rejected\\]',
    '^curl: ',
    '^# (?:tests|pass|fail|cancelled) ',
    `v${levelMark('EeFfCcPpAaWw', '456')}`,
    'CRITICAL',
    'PANIC',
    'crit\\]',
    'alert\\]',
    'emerg\\]',
    '^[EFW]\\d{4} ',
    ': killed',
  ],
  'gm',
);

/**
 * The pass over the middle of a text past the scan limit: only the marks of the lines that
 * matter most (errors, failures, exceptions), about three times as fast a character as
 * CANDIDATE. "error" counts when a colon or a bracket follows it, as in error:, Error:,
 * ValueError:, error[E0308] or Elixir's ** (RuntimeError); prose and code that merely name
 * errors are not candidates.
 *
 * @example
 * SEVERE.lastIndex = 0;
 * SEVERE.exec('ok\nValueError: bad input')?.index; // 9 (its 'rror:')
 */
export const SEVERE = anyOf(
  [
    'rror[:[)]',
    'ERROR',
    'ERR!',
    'FAIL',
    'failed',
    'Exception',
    'Traceback',
    'panic',
    'fatal',
    'FATAL',
    'Segmentation fault',
    'Uncaught',
    'Unhandled',
    'undefined reference',
    `v${levelMark('EeFfCcPpAa', '56')}`,
    'CRITICAL',
    'PANIC',
    '\\[(?:[\\w-]+:)?(?:crit|alert|emerg)\\]',
    '\\n[EF]\\d{4} \\d\\d:',
    ': killed',
    'Bus error',
    'BackOff',
  ],
  'g',
);
