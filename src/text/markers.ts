/**
 * Every marker spillway writes comes from this module, so every reader (tests, replay, later
 * stages that skip marked content) agrees on one format.
 */

/** What a snip counts in. */
export type Unit = 'bytes' | 'chars' | 'tokens';

/**
 * The marker put where snip removed the middle: `\n[...snipped N UNIT...]\n`, or with a note
 * `\n[...snipped N UNIT. NOTE]\n`. N is exactly what was removed, in the same unit.
 *
 * @example
 * snipMarker(1200, 'bytes'); // '\n[...snipped 1200 bytes...]\n'
 * snipMarker(9, 'tokens', 'recall with spillway_expand id "s/c"'); // '\n[...snipped 9 tokens. recall with spillway_expand id "s/c"]\n'
 */
export function snipMarker(removed: number, unit: Unit, note?: string): string {
  return note ? `\n[...snipped ${removed} ${unit}. ${note}]\n` : `\n[...snipped ${removed} ${unit}...]\n`;
}

const SNIP_MARKER = /\n\[\.\.\.snipped (\d+) (bytes|chars|tokens)(?:\.\.\.|\. [^\n]*)\]\n/;

/**
 * Finds a snip marker in text: what it says was removed and where it sits.
 *
 * @example
 * parseSnipMarker('ab\n[...snipped 3 chars...]\nz'); // { removed: 3, unit: 'chars', index: 2, length: 25 }
 */
export function parseSnipMarker(
  text: string,
): { removed: number; unit: Unit; index: number; length: number } | null {
  const m = SNIP_MARKER.exec(text);
  if (!m) return null;
  return { removed: Number(m[1]), unit: m[2] as Unit, index: m.index, length: m[0].length };
}
