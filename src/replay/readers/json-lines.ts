import { SpillwayError } from '../../errors.js';
import { isRecord } from '../../text/index.js';
import { quotedStart } from './quoted.js';

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
        `${name}: line ${i + 1} is not JSON (${quotedStart(line)})`,
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

// The last document parsed: detection asks several readers about one file, and each would
// otherwise parse the whole of it again (seconds for a large file).
let lastText: string | undefined;
let lastValue: unknown;

/**
 * The JSON value of a whole-file JSON document, or undefined when the text is not one (parsed
 * once per text, however many readers ask).
 *
 * @example
 * parseDocument('{"trajectory":[]}'); // { trajectory: [] }
 */
export function parseDocument(text: string): unknown {
  if (text === lastText) return lastValue;
  lastText = text;
  lastValue = undefined;
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    lastValue = JSON.parse(text);
  } catch {
    lastValue = undefined;
  }
  return lastValue;
}

/**
 * The error for a text in which a reader found nothing of its format: what it expected, and the
 * first line, which did not fit.
 *
 * @example
 * throw nothingFits('x.jsonl', 'Gemini CLI stream-json events', text);
 */
export function nothingFits(name: string, expects: string, text: string): SpillwayError {
  const first = text.split('\n').findIndex((l) => l.trim() !== '');
  const line =
    first < 0
      ? '(the file is empty)'
      : `line ${first + 1} does not fit (${quotedStart(text.split('\n')[first] as string)})`;
  return new SpillwayError('SPILLWAY_BAD_INPUT', `${name}: not ${expects}; ${line}`);
}

/** The records of a JSONL text, or of a JSON document that is an array or holds one (`data`, `messages`, ...). */
export function recordsOf(text: string, name: string, keys: readonly string[]): Record<string, unknown>[] {
  if (firstJsonLines(text, 1).length > 0 && !isSingleDocument(text))
    return parseJsonLines(text, name).filter(isRecord);
  const doc = parseDocument(text);
  if (Array.isArray(doc)) return doc.filter(isRecord);
  if (isRecord(doc)) {
    for (const key of keys) if (Array.isArray(doc[key])) return (doc[key] as unknown[]).filter(isRecord);
    return [doc];
  }
  return parseJsonLines(text, name).filter(isRecord);
}

function isSingleDocument(text: string): boolean {
  const end = text.indexOf('\n');
  return end < 0 || text.slice(end).trim() === '';
}
