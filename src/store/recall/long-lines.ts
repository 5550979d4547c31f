import { codePointFloor } from '../../text/index.js';
import type { SafePattern } from './safe-pattern.js';

// A line longer than this is searched in windows of it, with the event loop let run between
// them: V8's regex engines take memory in proportion to the text (over 150 bytes a character
// for the linear one), and a multi-megabyte line in one go stalls every other request.
export const LINE_WINDOW_CHARS = 64 * 1024;
// Windows overlap by this much: a match up to this long is found across a window edge.
const WINDOW_OVERLAP_CHARS = 4 * 1024;
// A line shown by grep or a range keeps at most this many characters.
const SHOWN_LINE_CHARS = 2000;

/** How to read a cut line whole: recall pages from the byte it starts at. */
const wholeFrom = (offset: number | undefined) =>
  offset === undefined ? '' : `; all of it: spillway_expand with offset ${offset}`;

/**
 * A line as recall shows it: whole up to SHOWN_LINE_CHARS, else its start and a note that says
 * how long it is and, given the byte it starts at, how to read it whole.
 *
 * @example
 * shown('short line'); // 'short line'
 * shown('x'.repeat(5000), 120); // 'xxx… … (line cut at 2000 of 5000 characters; all of it: spillway_expand with offset 120)'
 */
export function shown(text: string, offset?: number): string {
  return text.length <= SHOWN_LINE_CHARS
    ? text
    : `${text.slice(0, codePointFloor(text, SHOWN_LINE_CHARS))} … (line cut at ${SHOWN_LINE_CHARS} of ${text.length} characters${wholeFrom(offset)})`;
}

/**
 * A long matching line as the window of SHOWN_LINE_CHARS around its first match, so a match deep
 * in a one-line JSON answer or a minified file is shown, not the line's unrelated beginning.
 *
 * @example
 * shownAround('x'.repeat(100_000) + 'ERROR', 100_000); // '… xxx…ERROR (characters 98001-100005 of 100005 of this line)'
 */
export function shownAround(text: string, at: number, offset?: number): string {
  if (text.length <= SHOWN_LINE_CHARS || at < 0) return shown(text, offset);
  const start = codePointFloor(
    text,
    Math.max(0, Math.min(at - SHOWN_LINE_CHARS / 4, text.length - SHOWN_LINE_CHARS)),
  );
  const end = codePointFloor(text, start + SHOWN_LINE_CHARS);
  return `${start > 0 ? '… ' : ''}${text.slice(start, end)}${end < text.length ? ' …' : ''} (characters ${start + 1}-${end} of ${text.length} of this line${wholeFrom(offset)})`;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Where the first match in `text` starts, or -1: a long line is searched in overlapping windows
 * with the event loop let run between them. A window other than the first is searched behind a
 * NUL and one other than the last with a NUL after it, so `^` and `$` match only at the line's
 * own ends.
 *
 * @example
 * await locateIn(safePattern('FATAL'), hugeLine); // 1500000
 */
export async function locateIn(pattern: SafePattern, text: string): Promise<number> {
  if (text.length <= LINE_WINDOW_CHARS) return pattern.locate(text);
  const step = LINE_WINDOW_CHARS - WINDOW_OVERLAP_CHARS;
  for (let from = 0; from < text.length; from += step) {
    const to = Math.min(text.length, from + LINE_WINDOW_CHARS);
    const lead = from > 0 ? '\0' : '';
    const window = `${lead}${text.slice(from, to)}${to < text.length ? '\0' : ''}`;
    const at = pattern.locate(window);
    if (at >= 0) return from + Math.max(0, at - lead.length);
    if (to === text.length) break;
    await yieldToEventLoop();
  }
  return -1;
}
