/**
 * What makes a line of tool output worth keeping when the rest is cut: general rules on the
 * shape of the line, never on the tool that printed it. An agent acts on errors, failures,
 * exceptions and their frames, warnings, compiler diagnostics, test summaries, exit statuses
 * and diff hunks; those lines survive collapse, and linecap never cuts them.
 */

import { CANDIDATE, SEVERE } from './line-prefilter.js';

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
  // Exceptions and their headers: Python, JS, Java, Rust panics, Go panics; and where pytest
  // says an exception was raised (tests/test_pay.py:88: AssertionError).
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
  if (!ANY_RULE.test(start)) return undefined;
  for (const [kind, rule] of RULES) if (rule.test(start)) return kind;
  return undefined;
}

// Whether any rule matches, in one regex: most lines the pre-filters find are ordinary, and
// this rules them out at about half the cost of trying each rule.
const ANY_RULE = new RegExp(
  RULES.map(([kind, rule]) => {
    // A flag would not carry over into the joined regex (caseless() stands in for "i").
    if (rule.flags) throw new Error(`line rule for ${kind} has flags: ${rule}`);
    return `(?:${rule.source})`;
  }).join('|'),
);

// At most this many candidates of the middle are classified per stretch of this many
// characters: an output that says "error" on every line costs a bounded time, and its later
// stretches are still looked at.
const MIDDLE_STRETCH = 256 * 1024;
const MIDDLE_CANDIDATES = 64;

// After a line that matters, lines are classified one by one until this many in a row are not.
const READ_ON = 4;

// A match may run this far past the end of the window it starts in.
const MATCH_OVERRUN = 64;

/**
 * How much of a text is searched with the full pre-filter: all of it up to this many
 * characters; past that the first quarter and the last three quarters of this window around the
 * middle's ends (where a failure's cause and its final report usually are). The middle between
 * them is searched for errors, failures and exceptions only. The bound keeps collapse of a 15 MB
 * output within a few hashes of it.
 */
export const IMPORTANCE_SCAN_CHARS = 1024 * 1024;

/** One line of a text that matters: where it is and what it is. */
export interface ImportantLine {
  /** Index of the line, from 0. */
  line: number;
  start: number;
  end: number;
  kind: LineKind;
}

/** What one pass over a text finds: the lines that matter, and how many lines it has. */
export interface LineScan {
  important: ImportantLine[];
  lines: number;
}

/**
 * The lines of `text` that matter, in order, and its number of lines, in one pass. Only
 * candidate lines are classified: those a cheap pre-filter finds in the whole text up to
 * {@link IMPORTANCE_SCAN_CHARS}, and past that in its first and last stretches, with the
 * middle searched for errors, failures and exceptions (a few dozen per 256 Ki characters). At
 * most `limit` lines are returned, so memory stays bounded on any input.
 *
 * @example
 * scanLines('ok\nerror: boom\nok'); // { important: [{ line: 1, kind: 'error', ... }], lines: 3 }
 */
export function scanLines(text: string, limit = 20_000): LineScan {
  const out: ImportantLine[] = [];
  const long = text.length > IMPORTANCE_SCAN_CHARS;
  const headEnd = long ? IMPORTANCE_SCAN_CHARS / 4 : text.length;
  const tailStart = long ? text.length - (IMPORTANCE_SCAN_CHARS * 3) / 4 : text.length;
  // The line `counted` starts, and its number: every line is counted once, in order.
  let counted = 0;
  let line = 0;
  const lines = () => line + newlines(text, counted, text.length) + 1;

  // Classifies the line at `start` and reads on while lines keep mattering; false at the limit.
  const classify = (at: number): boolean => {
    let start = text.lastIndexOf('\n', at - 1) + 1;
    line += newlines(text, counted, start);
    for (let ordinary = 0; ordinary < READ_ON && start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const kind = lineKind(text.slice(start, Math.min(end, start + 512)));
      if (kind && out.at(-1)?.line !== line) {
        out.push({ line, start, end, kind });
        if (out.length >= limit) {
          counted = start;
          return false;
        }
        ordinary = 0;
      } else ordinary++;
      if (end >= text.length) {
        start = text.length;
        break;
      }
      start = end + 1;
      line++;
    }
    counted = start;
    return true;
  };

  // Searches [from, to) with `finder`, classifying at most `perStretch` candidates in each
  // stretch of `stretch` characters. The search runs on a view that ends just past `to`, so a
  // window with no candidate is not searched on to the end of the text.
  const search = (finder: RegExp, from: number, to: number, perStretch = Infinity, stretch = to - from) => {
    const view = text.slice(0, Math.min(text.length, to + MATCH_OVERRUN));
    // A search resumes one character back from where a line starts: a mark may begin with the
    // line end before its line (klog's "\nE1201 ..."). Always past the last match, so it moves on.
    const resume = (at: number) => (at > 0 ? at - 1 : 0);
    finder.lastIndex = resume(Math.max(from, counted));
    let current = -1;
    let taken = 0;
    for (let m = finder.exec(view); m !== null && m.index < to; m = finder.exec(view)) {
      const at = Math.floor((m.index - from) / stretch);
      if (at !== current) {
        current = at;
        taken = 0;
      }
      if (taken >= perStretch) {
        finder.lastIndex = Math.max(counted, from + (at + 1) * stretch);
        continue;
      }
      taken++;
      // A match that starts at a line end (klog's E and F lines, which a lookbehind would find
      // at a third of the speed) is of the line after it.
      if (!classify(text.charCodeAt(m.index) === 10 ? m.index + 1 : m.index)) return false;
      if (counted >= text.length) return false;
      finder.lastIndex = resume(counted);
    }
    return true;
  };

  // The one regex objects, not copies per call: V8 compiles a copy again once garbage
  // collections have dropped its compilation cache. The scan is synchronous, so no other call
  // can move their lastIndex meanwhile.
  if (search(CANDIDATE, 0, headEnd) && search(SEVERE, headEnd, tailStart, MIDDLE_CANDIDATES, MIDDLE_STRETCH))
    search(CANDIDATE, tailStart, text.length);
  return { important: out, lines: lines() };
}

function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}
