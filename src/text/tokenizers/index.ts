import { SpillwayError } from '../../errors.js';
import { cl100kTokenizer, o200kTokenizer } from './bpe.js';
import { heuristicTokenizer } from './heuristic.js';
import { DEFAULT_TOKENIZER, isTokenizerName, TOKENIZER_NAMES, type Tokenizer } from './tokenizer.js';

export { cl100kTokenizer, o200kTokenizer } from './bpe.js';
export { heuristicTokenizer } from './heuristic.js';
export { memoTokenizer } from './memo.js';
export * from './tokenizer.js';

/**
 * The tokenizer of that name; throws `SPILLWAY_BAD_CONFIG` naming the valid ones otherwise.
 *
 * @example
 * getTokenizer('cl100k').count('hello'); // 1
 */
export function getTokenizer(name: string = DEFAULT_TOKENIZER): Tokenizer {
  if (!isTokenizerName(name)) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `unknown tokenizer "${name}"; use one of: ${TOKENIZER_NAMES.join(', ')}`,
    );
  }
  switch (name) {
    case 'o200k':
      return o200kTokenizer;
    case 'cl100k':
      return cl100kTokenizer;
    case 'heuristic':
      return heuristicTokenizer;
  }
}

/**
 * Loads a tokenizer's tables now rather than on its first count: about 300 ms for the encoding
 * and 200 ms for the heap merge's ranks (built on the first long pre-token), each blocking the
 * event loop. A server does it while it starts, so no request after that stalls on them.
 *
 * @example
 * warmTokenizer(getTokenizer('o200k')); // the next count of a long base64 line does not stall
 */
export function warmTokenizer(tokenizer: Tokenizer): void {
  tokenizer.count('spillway');
  // One pre-token of 300 letters: counted by the heap merge, which builds its ranks.
  tokenizer.count('a'.repeat(300));
}
export { MAX_TOKEN_BYTES } from './bpe.js';
export { countUtf8UpTo } from './count-utf8.js';
export { statsCount, statsTokens } from './estimate.js';
export { knownCountUpTo, rememberedCount } from './memo.js';
