/**
 * What makes a line of tool output worth keeping when the rest is cut: general rules on the
 * shape of the line, never on the tool that printed it. An agent acts on errors, failures,
 * exceptions and their frames, warnings, compiler diagnostics, test summaries, exit statuses
 * and diff hunks; those lines survive collapse, and linecap never cuts them. Finding them in a
 * text is line-importance.ts.
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

/**
 * A whole word (of the alternatives given) that is not part of a path or a file name: joined to
 * one by - _ / or . before it, or by - _ / or a .extension after it, it names a file
 * (googletest-discovery-failed.py, llvm-c/Deprecated.h), not a failure or a warning. A word
 * before a full stop still counts (Build failed.).
 */
function wordNotInPath(alternatives: string): string {
  return `(?<![-_/.])\\b(?:${alternatives})\\b(?![-_/]|\\.\\w)`;
}

/**
 * A regex that matches its letters in either case, as the `i` flag would, but written out
 * ([eE][xX]...): every rule is then flagless, so they join into one regex (see ANY_RULE). The
 * source must have no letters in a character class or a range.
 */
function caseless(source: string): RegExp {
  return new RegExp(
    source.replace(/\\(?:u[\da-f]{4}|x[\da-f]{2}|.)|[a-z]/gi, (c) =>
      c.length > 1 ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`,
    ),
  );
}

/**
 * A structured log line's level field: `"level":"error"`, `"severity": "ERROR"`, pino's
 * `"level":50`, logfmt's `level=error`. Such a line rarely says "error:" itself. A level is
 * matched as loggers write it (error, Error, ERROR), not case-insensitively: that regex tested
 * every candidate line at twice the cost.
 */
function structuredLevel(names: readonly string[], numbers: string): RegExp {
  const key = '(?:level|severity|levelname|lvl|log\\.level)';
  const level = names.flatMap((n) => [n, `${n[0]?.toUpperCase()}${n.slice(1)}`, n.toUpperCase()]).join('|');
  return new RegExp(
    `"${key}"\\s*:\\s*(?:"(?:${level})"|(?:${numbers})\\b)|(?:level|lvl|severity)="?(?:${level})\\b`,
  );
}

// Each rule looks at the start of a line only (its first 512 characters): a regex over a
// megabyte line would cost time for nothing.
const RULES: readonly [LineKind, RegExp][] = [
  // Exceptions and their headers: Python, JS, Java, Rust panics, Go panics, Elixir's and
  // Erlang's ** (RuntimeError) and ** exception; and where pytest says an exception was raised
  // (tests/test_pay.py:88: AssertionError).
  [
    'exception',
    /^\s*(?:Traceback \(most recent call last\)|(?:[\w.$]+\.)?\w*(?:Error|Exception)(?::|\s*$| \[)|Exception in thread |panic(?:ked)?\b|thread '.*' panicked|Caused by:|Uncaught |Unhandled |\S+:\d+: (?:[\w.]+\.)?\w*(?:Error|Exception)\s*$|\*\* (?:\([\w.]+\)|exception) )/,
  ],
  // Test failures and assertions; pytest's FAILURES and ERRORS sections, vitest's failed tests,
  // ExUnit's numbered failures (`  1) test charges the card (Shop.CartTest)`),
  // a bundler that failed to compile.
  [
    'failure',
    /^\s*(?:FAIL(?:ED|URE)?\b|=+ (?:FAILURES|ERRORS) =+|Failed to compile|⎯+ Failed Tests \d|[✗✘×]\s|not ok\b|--- FAIL:|AssertionError|assert(?:ion)? failed|Expected\b.*\b(?:to|but)\b|E\s{2,}\S|\d+\) test .+ \([\w.]+\)\s*$)/,
  ],
  [
    'failure',
    new RegExp(`\\b(?:FAILED|FAILURE)\\b|(?<!\\b0 )${wordNotInPath('failed')}(?!\\s*[:=]?\\s*0\\b)`),
  ],
  // Errors: a word "error" that is not "0 errors", npm's ERR!, apt's E:, fatal, segfaults, git's
  // merge conflicts and rejected pushes, curl's numbered errors.
  [
    'error',
    /(?:^|[\s[(:])(?:error|ERROR|Error)(?:\[[\w-]+\])?(?:[:!\]]|\s)(?!\s*[:=]?\s*0\b)|npm ERR!|^E: |\bfatal\b|\bFATAL\b|Segmentation fault|core dumped|Killed\b|Aborted\b|command not found|No such file or directory|[Pp]ermission denied|undefined reference|^CONFLICT \(|^\s*! \[(?:remote )?rejected\]|^curl: \(\d+\)/,
  ],
  // Log levels above error as loggers print them (a level word, not the same word in prose:
  // "**CRITICAL**: follow this rule" is not one): Python's CRITICAL, PostgreSQL's PANIC,
  // nginx's and Apache's [crit], [alert] and [emerg], klog's E and F lines (E1201 09:00:00.000000),
  // and a shell's report of a process it lost.
  // (The ones at a line's start are a regex of their own: it fails at once on other lines.)
  [
    'error',
    /^(?:CRITICAL:[\w.-]*:|PANIC: |[EF]\d{4} \d\d:\d\d:\d\d\.\d+ |(?:zsh|bash|sh|fish): (?:killed|segmentation fault|bus error|abort|illegal instruction))/,
  ],
  ['error', /(?:[\d\]] |\[|\| )CRITICAL\b|[\d\]] PANIC: |\[(?:[\w-]+:)?(?:crit|alert|emerg)\]|Bus error\b/],
  // Container states that mean it is not running as it should (kubectl's and docker's tables).
  [
    'error',
    /\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainer(?:Config)?Error|RunContainerError|ContainerStatusUnknown|Evicted)\b|\bExited \([1-9]\d*\)|\bRestarting \(\d+\)/,
  ],
  // Structured logs: an error level as JSON or logfmt writes it (pino's and bunyan's 50 and 60).
  [
    'error',
    structuredLevel(
      ['error', 'err', 'fatal', 'critical', 'crit', 'panic', 'alert', 'emergency', 'emerg'],
      '[56]0',
    ),
  ],
  // Exit status lines.
  [
    'exit',
    caseless(
      String.raw`\b(?:exit(?:ed)?(?: with)? (?:code|status)|exited with (?:[1-9]\d*|non-zero)|exit code|returned non-zero|Process finished with exit code|make: \*\*\*|Command failed)\b`,
    ),
  ],
  // Test and build summaries.
  [
    'summary',
    /^\s*(?:Tests?:|Test Files|Test Suites:|Ran \d+ tests?|test result:|=+ .*\b(?:passed|failed|errors?)\b.*=+|(?:OK|FAILED) \(|BUILD (?:SUCCESS|FAILED|SUCCESSFUL)|\d+ (?:passing|failing|pending)\b|Found \d+ errors?|\d+ (?:errors?|warnings?) generated|error: could not compile)/,
  ],
  [
    'summary',
    /\b[1-9]\d* (?:passed|failed|skipped|errors?)(?:,| in |\s*$)|^# (?:tests|pass|fail|cancelled) \d+\s*$|\b\d+ tests?, \d+ failures?\b/,
  ],
  // A word that ends in Warning (DeprecationWarning, UserWarning) is one too, not in a path
  // either. Its start is looked for behind "Warning" once that is found: \w*Warning, tried at
  // every word, made this the costliest rule.
  [
    'warning',
    new RegExp(
      `${wordNotInPath('warn(?:ing)?|WARN(?:ING)?|[Dd]eprecat(?:ed|ion)')}|Warning\\b(?![-_/]|\\.\\w)(?<=(?:^|[^-_/.\\w])\\w*Warning)`,
    ),
  ],
  ['warning', structuredLevel(['warning', 'warn'], '40')],
  ['warning', /^W\d{4} \d\d:\d\d:\d\d\.\d+ /],
  // Stack frames.
  [
    'frame',
    /^\s*(?:at\s+\S.*(?::\d+|:line \d+|\(.*\))\)?\s*$|File "[^"]+", line \d+|\d+: 0x[0-9a-f]+ - |#\d+\s+0x[0-9a-f]+ in )/,
  ],
  // Go's: a tab, the file and line, and the offset (absent where the call was inlined).
  ['frame', /^\t(?:\/\S*:\d+(?: \+0x[0-9a-f]+)?|\S+:\d+ \+0x[0-9a-f]+)\s*$/],
  // Ruby's (`from app.rb:6:in 'Cart#total'`), Elixir's and Erlang's (`(app 1.0.0) lib/cart.ex:3:
  // Cart.total/2`) and PHP's (`#0 /srv/Cart.php(4): Cart::price()`).
  ['frame', /^\s*(?:from )?\S+:\d+:in [`'][^`']*'\s*$/],
  ['frame', /^\s+(?:\([\w.-]+ [\w.+-]+\) )?\S+\.(?:exs?|erl):\d+: /],
  ['frame', /^#\d+ \S+\(\d+\): /],
  // Compiler diagnostics: file:line:col, file(line,col), rustc's -->; and what a Go test logs
  // (`    cart_test.go:12: total = 6, want 7`, t.Errorf's and t.Fatalf's line).
  ['diagnostic', /\.[A-Za-z0-9]{1,10}(?::\d+:\d+|\(\d+,\d+\))|^\s*--> \S+:\d+:\d+|^ {4}[\w./-]+\.go:\d+: /],
  // A file and a line in words: Perl's warnings and dies (`at shop.pl line 7.`), Terraform's
  // `on main.tf line 12, in resource ...`.
  ['diagnostic', /\b(?:at|on) \S+\.[A-Za-z]{1,10} line \d+\b/],
  // Diff structure (not go test's verdicts: --- PASS: TestCharge).
  ['diff', /^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|\+\+\+ \S|--- (?!(?:PASS|SKIP|BENCH): )\S)/],
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
  const kind = kindOf(start);
  if (kind) return kind;
  // A line of merged output names its source first: its text is a line like any other.
  const prefix = SOURCE_PREFIX.exec(start)?.[0];
  return prefix ? kindOf(start.slice(prefix.length)) : undefined;
}

function kindOf(line: string): LineKind | undefined {
  if (!ANY_RULE.test(line)) return undefined;
  for (const [kind, rule] of RULES) if (rule.test(line)) return kind;
  return undefined;
}

/**
 * The source a tool that merges several outputs puts before each line: docker compose and
 * foreman (`web-1  | `, `12:00:01 web.1  | `), turbo (`web:test: `), concurrently and kubectl's
 * --prefix (`[web] `).
 */
const SOURCE_PREFIX =
  /^(?:(?:\d\d:\d\d:\d\d\s+)?[\w.@/-]+\s*\| ?|[\w.@/-]+:[A-Za-z][\w.-]*: |\[[\w.@/:-]+\] )/;

// Whether any rule matches, in one regex: most lines the pre-filters find are ordinary, and
// this rules them out at about half the cost of trying each rule.
const ANY_RULE = new RegExp(
  RULES.map(([kind, rule]) => {
    // A flag would not carry over into the joined regex (caseless() stands in for "i").
    if (rule.flags) throw new Error(`line rule for ${kind} has flags: ${rule}`);
    return `(?:${rule.source})`;
  }).join('|'),
);
