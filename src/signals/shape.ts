/**
 * The shape of a line: its first 200 characters with numbers, hex ids and hashes masked, and
 * runs of spaces made one, so lines that differ only in those compare equal (a column padded
 * to line up numbers of one digit, then of two, is one shape: pytest -v, ls -l, tables).
 *
 * @example
 * shapeOf('processed batch 12 in 37 ms') === shapeOf('processed batch 13 in 4 ms'); // true
 * shapeOf('test_9 PASSED   [  9%]') === shapeOf('test_10 PASSED  [ 10%]'); // true
 */
export function shapeOf(line: string): string {
  const masked = line.slice(0, 200).replace(/0x[0-9a-f]+|[0-9a-f]{7,}|\d+/gi, '#');
  // Most lines have no run of spaces: two native searches cost less than a second replace.
  return masked.includes('  ') || masked.includes('\t') ? masked.replace(/[ \t]{2,}/g, ' ') : masked;
}

/**
 * The template of a log line: its first 200 characters with every word that holds a digit
 * masked whole, so events of one kind from different hosts, nodes and times compare equal
 * (`R02-M1-N0-C:J12-U11`, `2005-06-03-15.42.50.675872`, `blk_-69522958`).
 *
 * @example
 * templateOf('R10-M1-N5 RAS KERNEL FATAL data storage interrupt') ===
 *   templateOf('R16-M0-NB RAS KERNEL FATAL data storage interrupt'); // true
 */
export function templateOf(line: string): string {
  return line
    .slice(0, 200)
    .replace(/[^\s]*\d[^\s]*/g, '#')
    .replace(/[ \t]+/g, ' ');
}

// A logger's level as a word of its own: quiet ones say a line is information, loud ones that
// it is a fault. Uppercase or bracketed, as loggers print them (prose says "info" and "error").
const QUIET_LEVEL =
  /(?:^|[\s[(<|])(?:TRACE|DEBUG|INFO|NOTICE|VERBOSE|\[(?:trace|debug|info|notice)\])(?=[\s\]):>|]|$)/;
const LOUD_LEVEL =
  /(?:^|[\s[(<|])(?:WARN|WARNING|ERROR|ERR|SEVERE|FATAL|CRIT|CRITICAL|ALERT|EMERG|PANIC)(?=[\s\]):>|]|$)/;

/**
 * Whether a line is logged at a quiet level (INFO, DEBUG, NOTICE, TRACE) and at no loud one:
 * an error word in it is information ("INFO instruction cache parity error corrected").
 *
 * @example
 * quietLevel('2005-06-03 RAS KERNEL INFO instruction cache parity error corrected'); // true
 * quietLevel('2005-06-03 RAS KERNEL FATAL data TLB error interrupt'); // false
 */
export function quietLevel(line: string): boolean {
  const head = line.slice(0, 200);
  return QUIET_LEVEL.test(head) && !LOUD_LEVEL.test(head);
}
