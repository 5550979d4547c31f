import { textOf, withText } from '../../text/blocks.js';
import type { Stage } from '../types.js';
import { perItem } from './per-item.js';

// CSI (colours, cursor moves), OSC (titles, hyperlinks) and two-character escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

// A \r that does not end a line (or the text) redraws it.
const REDRAW = /\r(?!\n|$)/;

/**
 * What a terminal would show: ANSI escapes removed, and each `\r` redraw resolved to the
 * line's last state (progress bars keep their final frame). `\r\n` line ends are kept.
 *
 * @example
 * cleanTerminalText('\x1b[32mok\x1b[0m 10%\r 50%\r100%\n'); // 'ok 10%\r...' -> '100%\n' per line
 */
export function cleanTerminalText(text: string): string {
  let out = text.includes('\x1b') ? text.replace(ANSI, '') : text;
  // CRLF text, however long, has nothing to resolve: it is not split into lines.
  if (REDRAW.test(out)) {
    out = out
      .split('\n')
      .map((line) => {
        const crlf = line.endsWith('\r');
        const body = crlf ? line.slice(0, -1) : line;
        if (!body.includes('\r')) return line;
        const frames = body.split('\r');
        // The last frame that drew something is what stayed on screen.
        let last = frames.length - 1;
        while (last > 0 && frames[last] === '') last--;
        return (frames[last] as string) + (crlf ? '\r' : '');
      })
      .join('\n');
  }
  return out;
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
    run: perItem(({ content }) => {
      const text = textOf(content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      const clean = cleanTerminalText(text);
      if (clean === text) return { action: 'declined', reason: 'nothing_to_clean' };
      return { action: 'acted', content: withText(content, clean) };
    }),
  };
}
