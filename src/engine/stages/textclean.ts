import { textOf, withText } from '../../text/index.js';
import type { Stage } from '../types.js';
import { perItem, sizeAfter } from './per-item.js';

// CSI (colours, cursor moves), OSC (titles, hyperlinks) and two-character escapes, tried at
// each ESC: a log of megabytes is searched for ESC natively, not run through the regex.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/y;

/** What a terminal shows of a text, and the UTF-8 bytes cleaning took out of it. */
export interface CleanText {
  text: string;
  removedBytes: number;
}

/**
 * What a terminal would show: ANSI escapes removed, and each `\r` redraw resolved to the
 * line's last state (progress bars keep their final frame). `\r\n` line ends are kept. The
 * bytes removed are counted as they go, so a megabyte log is not measured again.
 *
 * @example
 * cleanTerminal('\x1b[32mok\x1b[0m 10%\r100%\n'); // { text: '100%\n', removedBytes: 16 }
 */
export function cleanTerminal(text: string): CleanText {
  const stripped = stripEscapes(text);
  return hasRedraw(stripped.text) ? resolveRedraws(stripped) : stripped;
}

function stripEscapes(text: string): CleanText {
  let at = text.indexOf('\x1b');
  if (at < 0) return { text, removedBytes: 0 };
  const kept: string[] = [];
  let from = 0;
  let removedBytes = 0;
  while (at >= 0) {
    ESCAPE.lastIndex = at;
    const sequence = ESCAPE.exec(text)?.[0];
    if (sequence === undefined) {
      at = text.indexOf('\x1b', at + 1);
      continue;
    }
    kept.push(text.slice(from, at));
    removedBytes += Buffer.byteLength(sequence);
    from = at + sequence.length;
    at = text.indexOf('\x1b', from);
  }
  kept.push(text.slice(from));
  return { text: kept.join(''), removedBytes };
}

/** True when some `\r` neither ends a line nor the text: CRLF text has nothing to resolve. */
function hasRedraw(text: string): boolean {
  for (let at = text.indexOf('\r'); at >= 0; at = text.indexOf('\r', at + 1)) {
    if (at + 1 < text.length && text.charCodeAt(at + 1) !== 10) return true;
  }
  return false;
}

function resolveRedraws({ text, removedBytes }: CleanText): CleanText {
  let removed = removedBytes;
  const lines = text.split('\n').map((line) => {
    const crlf = line.endsWith('\r');
    const body = crlf ? line.slice(0, -1) : line;
    if (!body.includes('\r')) return line;
    const frames = body.split('\r');
    // The last frame that drew something is what stayed on screen.
    let last = frames.length - 1;
    while (last > 0 && frames[last] === '') last--;
    const frame = frames[last] as string;
    removed += Buffer.byteLength(body) - Buffer.byteLength(frame);
    return frame + (crlf ? '\r' : '');
  });
  return { text: lines.join('\n'), removedBytes: removed };
}

/**
 * textclean: removes ANSI escapes and resolves `\r` redraws. Pure and lossless for what a
 * reader of the terminal saw.
 *
 * @example
 * const stage = textcleanStage();
 */
export function textcleanStage(): Stage {
  return {
    name: 'textclean',
    lossy: false,
    pure: true,
    run: perItem((item) => {
      const { content } = item;
      const text = textOf(content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      const clean = cleanTerminal(text);
      if (clean.text === text) return { action: 'declined', reason: 'nothing_to_clean' };
      return {
        action: 'acted',
        content: withText(content, clean.text),
        ...sizeAfter(item, -clean.removedBytes),
      };
    }),
  };
}
