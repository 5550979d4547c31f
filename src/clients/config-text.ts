import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { SpillwayError } from '../errors.js';

/**
 * A JSON (or JSON with comments) file's value; a clear error naming the file and the place when
 * it does not parse, so setup never rewrites a file it could not read.
 *
 * @example
 * readJsonc('{ "a": 1 // one\n}', 'settings.json'); // { a: 1 }
 */
export function readJsonc(text: string, file: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) {
    const line = text.slice(0, first.offset).split('\n').length;
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${file} is not valid JSON (${printParseErrorCode(first.error)} on line ${line}); fix it, then run setup again`,
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${file} does not hold a JSON object; fix it, then run setup again`,
    );
  return value as Record<string, unknown>;
}

/**
 * `text` with the value at `path` set (or removed, for undefined), everything else (comments,
 * order, spacing) kept as it was.
 *
 * @example
 * setJsonc('{\n  "a": 1\n}\n', ['b'], 2); // '{\n  "a": 1,\n  "b": 2\n}\n'
 */
export function setJsonc(text: string, path: JSONPath, value: unknown): string {
  const base = text.trim() === '' ? '{}\n' : text;
  return applyEdits(
    base,
    modify(base, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }),
  );
}

/** The lines spillway's TOML and .env blocks start and end with; undo and re-setup find them. */
export const BLOCK_START = '# >>> spillway setup (undo: spillway setup CLIENT --undo)';
export const BLOCK_END = '# <<< spillway setup';

/**
 * `text` without spillway's marked blocks and with lines spillway commented out restored.
 *
 * @example
 * withoutBlocks('a = 1\n# >>> spillway setup ...\nb = 2\n# <<< spillway setup\n'); // 'a = 1\n'
 */
export function withoutBlocks(text: string): string {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('# >>> spillway setup')) inside = true;
    else if (line === BLOCK_END) inside = false;
    else if (!inside) out.push(line.startsWith(COMMENTED) ? line.slice(COMMENTED.length) : line);
  }
  return out.join('\n');
}

/** The prefix setup puts before a user's line it must switch off (undone by withoutBlocks). */
export const COMMENTED = '# (spillway setup) ';

/** A marked block of lines for `client`. */
export function block(client: string, lines: string[]): string {
  return `${BLOCK_START.replace('CLIENT', client)}\n${lines.join('\n')}\n${BLOCK_END}\n`;
}

/**
 * A TOML file's value, or a clear error naming the file.
 *
 * @example
 * readToml('model = "o3"\n', 'config.toml'); // { model: 'o3' }
 */
export function readToml(text: string, file: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${file} is not valid TOML (${(err as Error).message.split('\n')[0]}); fix it, then run setup again`,
    );
  }
}

/** A string as a TOML basic string (JSON's escapes are TOML's). */
export const tomlString = (s: string): string => JSON.stringify(s);
