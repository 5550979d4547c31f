import { textOf, withText } from '../../text/index.js';
import type { Stage } from '../types.js';
import { perItem } from './per-item.js';

/**
 * JSON with the whitespace between tokens removed, character for character otherwise: numbers,
 * escapes and duplicate keys stay exactly as written (JSON.stringify(JSON.parse(x)) would round
 * big integers and drop duplicate keys). The caller checks that the text parses.
 *
 * @example
 * compactJson('{\n  "a": [1, 2.50]\n}'); // '{"a":[1,2.50]}'
 */
export function compactJson(text: string): string {
  let out = '';
  let start = 0;
  let i = 0;
  // Jumps from one quote or whitespace to the next with native searches: most of a large JSON
  // result's bytes are inside long strings, which a character loop would walk one by one.
  for (;;) {
    // test() rather than exec(): no match array for each of a million quotes.
    QUOTE_OR_SPACE.lastIndex = i;
    if (!QUOTE_OR_SPACE.test(text)) break;
    i = QUOTE_OR_SPACE.lastIndex - 1;
    if (text.charCodeAt(i) === 0x22) i = stringEnd(text, i);
    else {
      out += text.slice(start, i);
      let c = text.charCodeAt(i);
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
      start = i;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

const QUOTE_OR_SPACE = /["\t\n\r ]/g;

/** The index after the string literal that opens at `open` (the text's end if it never closes). */
function stringEnd(text: string, open: number): number {
  for (let from = open + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    // Escaped only after an odd run of backslashes.
    let before = quote - 1;
    while (text.charCodeAt(before) === 0x5c) before--;
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

const JSON_START = /^[ \t\n\r]*[[{]/;

/**
 * format: re-serialises pretty-printed JSON compactly, only when the whole result parses.
 * Lossless: values are kept exactly as written.
 *
 * @example
 * const stage = formatStage();
 */
export function formatStage(): Stage {
  return {
    name: 'format',
    lossy: false,
    pure: true,
    run: perItem(({ content }) => {
      const text = textOf(content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      if (!JSON_START.test(text)) return { action: 'declined', reason: 'not_json' };
      // Compacting first: a result with no whitespace to take out (a large one-line answer) is
      // declined without being parsed.
      const compact = compactJson(text);
      if (compact.length >= text.length) return { action: 'declined', reason: 'already_compact' };
      try {
        // The text as it came: taking whitespace out can make invalid JSON valid ([1 2] -> [12]).
        JSON.parse(text);
      } catch {
        return { action: 'declined', reason: 'not_json' };
      }
      return { action: 'acted', content: withText(content, compact) };
    }),
  };
}
