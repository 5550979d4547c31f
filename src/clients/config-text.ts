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
  const eol = /\r\n/.test(base) ? '\r\n' : '\n';
  return applyEdits(
    base,
    modify(base, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol } }),
  );
}

/**
 * `text` without the objects at `paths` that setup's removals left empty (`"mcpServers": {}`,
 * `"hooks": {}`): undo on a file the client changed since leaves no trace of spillway.
 *
 * @example
 * withoutEmpty('{ "a": 1, "mcpServers": {} }', [['mcpServers']]); // '{ "a": 1 }'
 */
export function withoutEmpty(text: string, paths: readonly JSONPath[]): string {
  let out = text;
  for (const path of paths) {
    let value: unknown = parse(out, [], { allowTrailingComma: true });
    for (const key of path) value = (value as Record<string | number, unknown> | undefined)?.[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
      out = setJsonc(out, path, undefined);
  }
  return out;
}

/**
 * A text edit made on LF lines without a byte-order mark, written back in the file's own form:
 * a file an editor saved with CRLF line endings (every line) or a BOM gets them back, and a
 * file of mixed endings is edited as it is (spillway's markers are found whatever ends them).
 *
 * @example
 * keepingForm((t) => t + 'b\n')('a\r\n'); // 'a\r\nb\r\n'
 */
export function keepingForm<A extends unknown[]>(
  edit: (text: string, ...rest: A) => string,
): (text: string, ...rest: A) => string {
  return (text, ...rest) => {
    const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
    const body = bom ? text.slice(1) : text;
    const crlf = body.includes('\r\n') && !/(^|[^\r])\n/.test(body);
    const out = edit(crlf ? body.replaceAll('\r\n', '\n') : body, ...rest);
    return bom + (crlf ? out.replaceAll('\n', '\r\n') : out);
  };
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
  let joined = false;
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.startsWith('# >>> spillway setup')) {
      inside = true;
      joined = line.replace(/\r$/, '').endsWith(JOINED);
    } else if (inside && line.replace(/\r$/, '') === BLOCK_END) {
      inside = false;
      // The newline setup added after a last line that had none goes with the block.
      if (joined && i === lines.length - 2 && lines[i + 1] === '') lines.pop();
    } else if (!inside) out.push(line.startsWith(COMMENTED) ? line.slice(COMMENTED.length) : line);
  }
  return out.join('\n');
}

/** What a block's first line says when setup had to end the user's last line to put it after. */
const JOINED = '; your last line had no newline)';

/** The prefix setup puts before a user's line it must switch off (undone by withoutBlocks). */
export const COMMENTED = '# (spillway setup) ';

/** A marked block of lines for `client`. */
export function block(client: string, lines: string[]): string {
  return `${BLOCK_START.replace('CLIENT', client)}\n${lines.join('\n')}\n${BLOCK_END}\n`;
}

/**
 * `text` with a marked block for `client` at its end, exactly undone by withoutBlocks: when the
 * text's last line has no newline, setup adds one and the block's first line says so.
 *
 * @example
 * appendBlock('a = 1', 'codex', ['b = 2']); // 'a = 1\n# >>> spillway setup (undo: ...; your last line had no newline)\nb = 2\n# <<< spillway setup\n'
 */
export function appendBlock(text: string, client: string, lines: string[]): string {
  if (text === '' || text.endsWith('\n')) return `${text}${block(client, lines)}`;
  return `${text}\n${block(client, lines).replace(/\)\n/, `${JOINED}\n`)}`;
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

/**
 * For each line of a TOML text, whether it starts inside a multi-line string (`"""` or `'''`):
 * such a line is text, never a key, a table header or a comment, whatever it looks like.
 *
 * @example
 * linesInsideStrings(['a = """', 'b = 1', '"""', 'c = 2']); // [false, true, true, false]
 */
export function linesInsideStrings(lines: readonly string[]): boolean[] {
  const inside: boolean[] = [];
  let open: '"""' | "\'\'\'" | '' = '';
  for (const line of lines) {
    inside.push(open !== '');
    for (let i = 0; i < line.length; i++) {
      if (open === '"""') {
        if (line[i] === '\\') i++;
        else if (line.startsWith('"""', i)) {
          open = '';
          i += 2;
        }
      } else if (open) {
        if (line.startsWith("'''", i)) {
          open = '';
          i += 2;
        }
      } else if (line[i] === '#') break;
      else if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
        open = line.slice(i, i + 3) as '"""';
        i += 2;
      } else if (line[i] === '"' || line[i] === "'") {
        const quote = line[i];
        for (i++; i < line.length && line[i] !== quote; i++) if (quote === '"' && line[i] === '\\') i++;
      }
    }
  }
  return inside;
}

/**
 * The value a `.env` file gives `name`, read as dotenv reads it (Gemini CLI's loader): `KEY=value`
 * or `export KEY=value`, quotes taken off, an unquoted value's ` # comment` dropped, the last
 * line that sets it winning. Undefined when no line sets it.
 *
 * @example
 * dotenvValue('GOOGLE_GEMINI_BASE_URL="https://gw.test" # mine\n', 'GOOGLE_GEMINI_BASE_URL'); // 'https://gw.test'
 */
export function dotenvValue(text: string, name: string): string | undefined {
  let value: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (m?.[1] !== name) continue;
    const raw = (m[2] as string).trim();
    const quoted = /^(['"`])(.*)\1/.exec(raw);
    value = quoted ? (quoted[2] as string) : raw.replace(/\s+#.*$/, '').trim();
  }
  return value;
}
