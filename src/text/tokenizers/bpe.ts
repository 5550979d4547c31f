import { createRequire } from 'node:module';
import { nextChunkEnd } from './pretoken-chunks.js';
import type { Tokenizer, TokenizerName } from './tokenizer.js';

// Special-token strings such as <|endoftext|> inside a tool result are plain text to us.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type CountFn = (text: string, options: typeof PLAIN_TEXT) => number;

const require = createRequire(import.meta.url);

/**
 * The encoding's tables take about 200 ms and 50 MB to load, so they load on the first count,
 * not at import: a CLI command or an MCP server that never counts never pays for them. A
 * synchronous require keeps `Tokenizer.count` synchronous.
 */
function lazyCount(encoding: 'o200k_base' | 'cl100k_base'): CountFn {
  let count: CountFn | undefined;
  return (text, options) => {
    count ??= (require(`gpt-tokenizer/encoding/${encoding}`) as { countTokens: CountFn }).countTokens;
    return count(text, options);
  };
}

function chunkedTokenizer(name: TokenizerName, countTokens: CountFn): Tokenizer {
  const countUpTo = (text: string, limit: number): number => {
    let total = 0;
    let start = 0;
    while (start < text.length) {
      const end = nextChunkEnd(text, start);
      total += countTokens(start === 0 && end === text.length ? text : text.slice(start, end), PLAIN_TEXT);
      if (total > limit) return total;
      start = end;
    }
    return total;
  };
  return {
    name,
    count: (text) => countUpTo(text, Number.POSITIVE_INFINITY),
    countUpTo,
  };
}

/**
 * o200k_base (GPT-4o, GPT-4.1, GPT-5, o-series), via gpt-tokenizer, counted in bounded chunks
 * cut at pre-token boundaries, so the count equals gpt-tokenizer's own and no input is quadratic.
 *
 * @example
 * o200kTokenizer.count('<|endoftext|>'); // counted as plain text, never thrown on
 */
export const o200kTokenizer: Tokenizer = chunkedTokenizer('o200k', lazyCount('o200k_base'));

/**
 * cl100k_base (GPT-4, GPT-3.5), via gpt-tokenizer, chunked like o200k.
 *
 * @example
 * cl100kTokenizer.countUpTo(bigLog, 1000); // stops reading soon after 1,000 tokens
 */
export const cl100kTokenizer: Tokenizer = chunkedTokenizer('cl100k', lazyCount('cl100k_base'));
