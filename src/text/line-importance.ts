/**
 * What makes a line of tool output worth keeping when the rest is cut: general rules on the
 * shape of the line, never on the tool that printed it. An agent acts on errors, failures,
 * exceptions and their frames, warnings, compiler diagnostics, test summaries, exit statuses
 * and diff hunks; those lines survive collapse, and linecap never cuts them.
 */

/** The kinds of line that matter, most important first. */
export const LINE_KINDS = [
  'error',
  'failure',
  'exception',
  'exit',
  'summary',
  'diagnostic',
  'warning',
  'frame',
  'diff',
] as const;
export type LineKind = (typeof LINE_KINDS)[number];

/** How much each kind matters (higher is kept first). */
export const LINE_WEIGHT: Readonly<Record<LineKind, number>> = {
  error: 9,
  failure: 9,
  exception: 9,
  exit: 8,
  summary: 7,
  diagnostic: 6,
  warning: 4,
  frame: 3,
  diff: 2,
};

// Each rule looks at the start of a line only (its first 512 characters): a regex over a
// megabyte line would cost time for nothing.
const RULES: readonly [LineKind, RegExp][] = [
  // Exceptions and their headers: Python, JS, Java, Rust panics, Go panics.
  [
    'exception',
    /^\s*(?:Traceback \(most recent call last\)|(?:[\w.$]+\.)?\w*(?:Error|Exception)(?::|\s*$| \[)|panic(?:ked)?\b|thread '.*' panicked|Caused by:|Uncaught |Unhandled )/,
  ],
  // Test failures and assertions.
  [
    'failure',
    /^\s*(?:FAIL(?:ED|URE)?\b|[✗✘×]\s|not ok\b|--- FAIL:|AssertionError|assert(?:ion)? failed|Expected\b.*\b(?:to|but)\b|E\s{2,}\S)/,
  ],
  ['failure', /\b(?:FAILED|FAILURE)\b|\bfailed\b(?!\s*[:=]?\s*0\b)/],
  // Errors: a word "error" that is not "0 errors", npm's ERR!, fatal, segfaults.
  [
    'error',
    /(?:^|[\s[(:])(?:error|ERROR|Error)(?:\[[\w-]+\])?(?:[:!\]]|\s)(?!\s*[:=]?\s*0\b)|npm ERR!|\bfatal\b|\bFATAL\b|Segmentation fault|core dumped|Killed\b|Aborted\b|command not found|No such file or directory|Permission denied|undefined reference/,
  ],
  // Exit status lines.
  [
    'exit',
    /\b(?:exit(?:ed)?(?: with)? (?:code|status)|exit code|returned non-zero|Process finished with exit code|make: \*\*\*|Command failed)\b/i,
  ],
  // Test and build summaries.
  [
    'summary',
    /^\s*(?:Tests?:|Test Files|Test Suites:|Ran \d+ tests?|test result:|=+ .*\b(?:passed|failed|errors?)\b.*=+|(?:OK|FAILED) \(|BUILD (?:SUCCESS|FAILED|SUCCESSFUL)|\d+ (?:passing|failing|pending)\b|Found \d+ errors?|\d+ (?:errors?|warnings?) generated|error: could not compile)/,
  ],
  ['summary', /\b\d+ (?:passed|failed|skipped|errors?)(?:,| in |\s*$)/],
  // Compiler diagnostics: file:line:col, file(line,col), rustc's -->.
  ['diagnostic', /[\w@~.\-/\\]+\.[A-Za-z0-9]{1,10}(?::\d+:\d+|\(\d+,\d+\))|^\s*--> \S+:\d+:\d+/],
  ['warning', /\b(?:warn(?:ing)?|WARN(?:ING)?|[Dd]eprecat(?:ed|ion))\b/],
  // Stack frames.
  [
    'frame',
    /^\s*(?:at\s+\S.*(?::\d+|\(.*\))\)?\s*$|File "[^"]+", line \d+|\d+: 0x[0-9a-f]+ - |#\d+\s+0x[0-9a-f]+ in )/,
  ],
  // Diff structure.
  ['diff', /^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|\+\+\+ \S|--- \S)/],
];

/**
 * The kind of a line, or undefined for an ordinary one.
 *
 * @example
 * lineKind('src/pay.ts:88:3 - error TS2345: Argument of type ...'); // 'error'
 * lineKind('Traceback (most recent call last):'); // 'exception'
 * lineKind('  compiled module-12.ts in 4 ms'); // undefined
 */
export function lineKind(line: string): LineKind | undefined {
  const start = line.length > 512 ? line.slice(0, 512) : line;
  for (const [kind, rule] of RULES) if (rule.test(start)) return kind;
  return undefined;
}

// A cheap first pass over a whole text: every line a rule can match contains one of these.
const CANDIDATE =
  /error|err!|fail|fatal|panic|exception|traceback|assert|expected|warn|deprecat|exit|killed|abort|segmentation|dumped|not found|no such|denied|undefined reference|caused by|uncaught|unhandled|command|make: |passed|passing|pending|skipped|tests?[: ]|ran \d|ok \(|build |found \d|generated|could not|[✗✘×]|not ok|-{3} |\+{3} |@@ -|diff --git|:\d+:\d+|\(\d+,\d+\)|--> | at |file "|0x[0-9a-f]|^e\s{2}/gim;

/** One line of a text that matters: where it is and what it is. */
export interface ImportantLine {
  /** Index of the line, from 0. */
  line: number;
  start: number;
  end: number;
  kind: LineKind;
}

/**
 * The lines of `text` that matter, in order, among the lines `from` to `to` (exclusive, counted
 * from 0). One pass over the text with a cheap pre-filter; only candidate lines are classified.
 * At most `limit` lines are returned (the earliest), so memory stays bounded on any input.
 *
 * @example
 * importantLines('ok\nerror: boom\nok').map((l) => l.line); // [1]
 */
export function importantLines(
  text: string,
  from = 0,
  to = Number.POSITIVE_INFINITY,
  limit = 20_000,
): ImportantLine[] {
  const out: ImportantLine[] = [];
  const finder = new RegExp(CANDIDATE.source, CANDIDATE.flags);
  let line = 0;
  let counted = 0; // text position up to which newlines are counted into `line`
  for (let m = finder.exec(text); m !== null; m = finder.exec(text)) {
    const start = text.lastIndexOf('\n', m.index - 1) + 1;
    for (let at = text.indexOf('\n', counted); at >= 0 && at < start; at = text.indexOf('\n', at + 1)) line++;
    counted = start;
    let end = text.indexOf('\n', m.index);
    if (end < 0) end = text.length;
    if (line >= to) break;
    if (line >= from) {
      const kind = lineKind(text.slice(start, Math.min(end, start + 512)));
      if (kind) {
        out.push({ line, start, end, kind });
        if (out.length >= limit) break;
      }
    }
    // One classification a line: go on after its end.
    finder.lastIndex = end + 1;
    if (end >= text.length) break;
  }
  return out;
}
