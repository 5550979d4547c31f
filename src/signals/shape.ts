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
