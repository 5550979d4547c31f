/**
 * What tools put before a line's message: CI timestamps, colour codes, log headers, the source
 * of a merged stream. The signal rules are written for the message; a line that matches none of
 * them as it is is tried again without its prefixes. Only the matching sees the line without
 * them: the line kept is the line as it was.
 */

/** One kind of prefix: a regex anchored at the line's start, and real lines with what follows it. */
export interface PrefixRule {
  id: string;
  /** Matches the prefix at the start of a line (flagless; joined with the others). */
  pattern: RegExp;
  /** Lines as tools print them, each with the message left once this prefix is taken off. */
  examples: readonly (readonly [line: string, message: string])[];
}

export const PREFIX_RULES: readonly PrefixRule[] = [
  {
    id: 'ci-timestamp',
    // GitHub Actions' raw logs, Azure Pipelines: an ISO time with up to 7 decimals and a Z.
    pattern: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z ?/,
    examples: [['2023-03-02T10:11:12.3456789Z --- FAIL: TestCharge (0.00s)', '--- FAIL: TestCharge (0.00s)']],
  },
  {
    id: 'timestamp',
    // A date and time, bracketed or not, with a zone or not: Jenkins, GitLab, most loggers.
    pattern: /^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?: ?(?:Z|UTC|[+-]\d\d:?\d\d))?\]? +/,
    examples: [
      ['[2026-12-01 09:30:00,123] panic: send on closed channel', 'panic: send on closed channel'],
      ['2026-12-01T09:30:00+01:00 --- FAIL: TestSync (2.01s)', '--- FAIL: TestSync (2.01s)'],
    ],
  },
  {
    id: 'clock',
    // Just the time of day: Travis, gradle --info, compose with timestamps.
    pattern: /^\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]? +/,
    examples: [['[09:30:00] --- FAIL: TestSync (2.01s)', '--- FAIL: TestSync (2.01s)']],
  },
  {
    id: 'syslog',
    // `Mar  2 10:11:12 host program[pid]: ` (RFC 3164, journalctl's short format).
    pattern: /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [\w./@-]+(?:\[\d+\])?: /,
    examples: [['Mar  2 10:11:12 web-1 app[812]: panic: out of memory', 'panic: out of memory']],
  },
  {
    id: 'actions-command',
    // GitHub Actions' workflow commands as its logs show them.
    pattern: /^##\[(?:group|endgroup|section|command|debug|notice)\]/,
    examples: [['##[group]--- FAIL: TestCharge (0.00s)', '--- FAIL: TestCharge (0.00s)']],
  },
  {
    id: 'log-level',
    // Maven's and Gradle's levels, and any logger's bracketed level.
    pattern: /^\[(?:INFO|WARNING|WARN|ERROR|DEBUG|TRACE|FATAL|NOTICE)\] /,
    examples: [['[INFO] BUILD FAILURE', 'BUILD FAILURE']],
  },
  {
    id: 'kubectl',
    // kubectl logs --prefix: `[pod/NAME/CONTAINER] `.
    pattern: /^\[pod\/[\w.-]+\/[\w.-]+\] /,
    examples: [['[pod/web-7d9c/app] panic: boom', 'panic: boom']],
  },
  {
    id: 'merged-source',
    // docker compose and foreman (`web-1  | `), turbo (`web:test: `), concurrently (`[web] `).
    pattern: /^(?:[\w.@/-]+\s*\| ?|[\w.@/-]+:[A-Za-z][\w.-]*: |\[[\w.@/:-]+\] )/,
    examples: [
      ['web-1  | panic: boom', 'panic: boom'],
      ['web:test: --- FAIL: TestCharge (0.00s)', '--- FAIL: TestCharge (0.00s)'],
      ['[web] Traceback (most recent call last):', 'Traceback (most recent call last):'],
    ],
  },
  {
    id: 'terraform-box',
    // Terraform draws its diagnostics in a box: `╷`, then `│ ` before each line, then `╵`.
    pattern: /^[│╷╵] ?/,
    examples: [['│ Error: Invalid reference', 'Error: Invalid reference']],
  },
];

const PREFIX = new RegExp(`^(?:${PREFIX_RULES.map((r) => r.pattern.source.slice(1)).join('|')})`);
// Colour and cursor codes (CSI sequences), wherever they are in the line, and the same in caret
// notation (`^[[31m`), as a log viewer or `cat -v` saved them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI = /(?:\x1b|\^\[)\[[0-?]*[ -/]*[@-~]/g;
// A prefix stacks on another (a timestamp before a level before a source): at most this many.
const MAX_PREFIXES = 4;

/**
 * The messages of a line: the line without its colour codes, then each prefix taken off in turn
 * (at most four), the first message first. Empty when the line has neither.
 *
 * @example
 * [...messagesOf('2023-03-02T10:11:12.3456789Z [ERROR] bad class file')]; // ['[ERROR] bad class file', 'bad class file']
 */
export function* messagesOf(line: string): Generator<string> {
  let rest = line;
  if (rest.includes('\x1b') || rest.includes('^[[')) {
    rest = rest.replace(ANSI, '');
    yield rest;
  }
  for (let i = 0; i < MAX_PREFIXES; i++) {
    const prefix = PREFIX.exec(rest)?.[0];
    if (!prefix) return;
    rest = rest.slice(prefix.length);
    yield rest;
  }
}
