/**
 * What an error may say of a file's content: the start of a line only when it opens like JSON
 * (a transcript line), at most 60 characters, with control bytes escaped. Anything else (a
 * password file's `root:*:...`, a key's header, binary) is described, never quoted: a replay
 * of the wrong file must not copy its secrets into a terminal or an HTML report.
 *
 * @example
 * quotedStart('{"type":"user","message":'); // 'it starts: {"type":"user","message":'
 * quotedStart('root:*:19000:0:99999:7:::'); // 'it does not start like JSON'
 */
export function quotedStart(line: string): string {
  const text = line.trim();
  if (text === '') return 'the line is empty';
  if (!/^[[{]\s*("|\]|\}|\[|\{|$)/.test(text)) return 'it does not start like JSON';
  return `it starts: ${escapeControls(text.slice(0, 60))}${text.length > 60 ? '…' : ''}`;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A text with control characters (and DEL, and C1) written as `\xNN`, safe to print anywhere.
 *
 * @example
 * escapeControls('a\u001b[2Jb'); // 'a\\x1b[2Jb'
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
