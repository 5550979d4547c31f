import { utf8Length } from '../measure.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * `ceil(bytes / 4)`: no dependency, stable across versions, fast. It undercounts logs (~40%) and
 * dense JSON (~20%) against real BPE, so it is for when speed matters more than precision.
 *
 * @example
 * heuristicTokenizer.count('12345'); // 2
 */
export const heuristicTokenizer: Tokenizer = {
  name: 'heuristic',
  count(text) {
    return Math.ceil(utf8Length(text) / 4);
  },
  countUpTo(text, limit) {
    // Bytes are at most 3 per UTF-16 unit, so a prefix of (limit + 1) * 4 units already shows
    // whether the limit is passed, without measuring a huge string.
    const window = (Math.max(0, limit) + 1) * 4;
    if (text.length > window) {
      const head = Math.ceil(utf8Length(text.slice(0, window)) / 4);
      if (head > limit) return head;
    }
    return Math.ceil(utf8Length(text) / 4);
  },
};
