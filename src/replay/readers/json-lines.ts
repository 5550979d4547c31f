import { SpillwayError } from '../../errors.js';

/**
 * The JSON values of a JSONL text, one a line (blank lines skipped). A line that is not JSON is
 * an error naming it; a torn last line (no newline after it) is the one exception, dropped.
 *
 * @example
 * parseJsonLines('{"a":1}\n{"a":2}\n', 'x.jsonl'); // [{ a: 1 }, { a: 2 }]
 */
export function parseJsonLines(text: string, name: string): unknown[] {
  const lines = text.split('\n');
  const out: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      const torn = i === lines.length - 1 && !text.endsWith('\n');
      if (torn && out.length > 0) break;
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `${name}: line ${i + 1} is not JSON: ${line.slice(0, 80)}`,
      );
    }
  }
  return out;
}

/** The first few JSON lines of a text, for format detection; [] when they are not JSON. */
export function firstJsonLines(text: string, count = 20): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let start = 0;
  while (out.length < count && start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (!line) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
      out.push(value as Record<string, unknown>);
    } catch {
      // A torn last line (a writer killed mid-line) does not make the rest unreadable.
      return end === text.length && out.length > 0 ? out : [];
    }
  }
  return out;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
