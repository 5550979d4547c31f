/**
 * The shape of a line: its first 200 characters with numbers, hex ids and hashes masked, so
 * lines that differ only in those compare equal.
 *
 * @example
 * shapeOf('processed batch 12 in 37 ms') === shapeOf('processed batch 13 in 4 ms'); // true
 */
export function shapeOf(line: string): string {
  return line.slice(0, 200).replace(/0x[0-9a-f]+|[0-9a-f]{7,}|\d+/gi, '#');
}
