/**
 * Builders for the shapes several rules share. Every rule is flagless (see `caseless`), so
 * all of them join into one regex that rules most lines out at once.
 */

/**
 * A whole word (of the alternatives given) that is not part of a path or a file name: joined to
 * one by - _ / or . before it, or by - _ / or a .extension after it, it names a file
 * (googletest-discovery-failed.py, llvm-c/Deprecated.h), not a failure or a warning. A word
 * before a full stop still counts (Build failed.).
 *
 * @example
 * new RegExp(wordNotInPath('failed')).test('build-failed.log'); // false
 */
export function wordNotInPath(alternatives: string): string {
  return `(?<![-_/.])\\b(?:${alternatives})\\b(?![-_/]|\\.\\w)`;
}

/**
 * A regex that matches its letters in either case, as the `i` flag would, but written out
 * ([eE][xX]...): every rule is then flagless. The source must have no letters in a character
 * class or a range.
 *
 * @example
 * caseless('exit code').test('EXIT CODE 1'); // true
 */
export function caseless(source: string): RegExp {
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
 *
 * @example
 * structuredLevel(['error'], '50').test('{"level":50,"msg":"boom"}'); // true
 */
export function structuredLevel(names: readonly string[], numbers: string): RegExp {
  const key = '(?:level|severity|levelname|lvl|log\\.level)';
  const level = names.flatMap((n) => [n, `${n[0]?.toUpperCase()}${n.slice(1)}`, n.toUpperCase()]).join('|');
  return new RegExp(
    `"${key}"\\s*:\\s*(?:"(?:${level})"|(?:${numbers})\\b)|(?:level|lvl|severity)="?(?:${level})\\b`,
  );
}

/**
 * The pre-filter mark of a structured level field, in JSON or logfmt: the end of its key and
 * the first letters of the levels (`initials`) or the first digits of their numbers.
 *
 * @example
 * new RegExp(levelMark('Ee', '5')).test('"level":"error"'); // true
 */
export function levelMark(initials: string, numbers: string): string {
  return `v(?:el|l|erity)(?:"\\s*:\\s*(?:"[${initials}]|[${numbers}]0\\b)|="?[${initials}])`;
}
