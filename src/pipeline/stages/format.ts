import { textOf, withText } from '../../text/blocks.js';
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
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string literal whole, escapes included.
      i++;
      while (i < text.length) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
    } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(start, i);
      for (
        let d = text.charCodeAt(i);
        d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09;
        d = text.charCodeAt(i)
      )
        i++;
      start = i;
    } else i++;
  }
  return out + text.slice(start);
}

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
      const trimmed = text.trim();
      if (!(trimmed.startsWith('{') || trimmed.startsWith('[')))
        return { action: 'declined', reason: 'not_json' };
      try {
        JSON.parse(trimmed);
      } catch {
        return { action: 'declined', reason: 'not_json' };
      }
      const compact = compactJson(trimmed);
      if (compact.length >= text.length) return { action: 'declined', reason: 'already_compact' };
      return { action: 'acted', content: withText(content, compact) };
    }),
  };
}
