import { createRequire } from 'node:module';
import { eachMatch } from './each-match.js';
import { type ByteRanks, mergeCount } from './heap-bpe.js';
import { CHUNK_TARGET, mayHoldLongPretoken, nextChunkEnd } from './pretoken-chunks.js';
import type { Tokenizer, TokenizerName } from './tokenizer.js';

type EncodingName = 'o200k_base' | 'cl100k_base';
type RankDecoder = readonly (string | readonly number[])[];

/** What the heap merge needs of an encoding: its pre-token regex and its ranks by bytes. */
interface LinearEncoding {
  readonly pieces: RegExp;
  readonly ranks: ByteRanks;
}

/**
 * Pieces longer than this many bytes are split before merging (at most a token or two off per
 * split): the merge holds 20 bytes of arrays per byte, so this bounds one count's memory to 80 MB.
 */
const MAX_MERGE_BYTES = 4 << 20;

const require = createRequire(import.meta.url);

/**
 * The longest token of both encodings, in UTF-8 bytes (a test reads it off their tables). A text
 * is at least one token per this many bytes, and has at least as many bytes as UTF-16 units: so
 * a text longer than `limit` times this is over any `limit` without being read.
 */
export const MAX_TOKEN_BYTES = 128;

/**
 * The library keeps an LRU cache of 100,000 merged pieces whose eviction gets slower the more it
 * evicts (7 s per MiB of minified code once full, against 1.3 s). A count never feeds it more
 * than one entry per two characters, so clearing it every 190,000 characters means it never fills.
 */
const CLEAR_CACHE_EVERY = 190_000;

/** What a count needs of the library's encoder (the pinned version's, as the tests check). */
interface LibraryCore {
  readonly tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): readonly number[];
  clearMergeCache(): void;
}

/**
 * The encoding's tables take about 200 ms and 50 MB to load, so they load on the first count,
 * not at import: a CLI command or an MCP server that never counts never pays for them. A
 * synchronous require keeps `Tokenizer.count` synchronous. A count is the library's
 * `countTokens` with no special tokens (`<|endoftext|>` in a tool result is plain text): each
 * pre-token is one known token, or merged.
 */
function lazyCount(encoding: EncodingName): (text: string) => number {
  let core: LibraryCore | undefined;
  let split: RegExp | undefined;
  let sinceClear = 0;
  return (text) => {
    if (!core || !split) {
      const lib = require(`gpt-tokenizer/encoding/${encoding}`) as {
        default: { bytePairEncodingCoreProcessor: LibraryCore };
      };
      core = lib.default.bytePairEncodingCoreProcessor;
      split = new RegExp(core.tokenSplitRegex.source, core.tokenSplitRegex.flags);
    }
    sinceClear += text.length;
    if (sinceClear > CLEAR_CACHE_EVERY) {
      core.clearMergeCache();
      sinceClear = text.length;
    }
    const known = core;
    let total = 0;
    // Not matchAll, as the library does: see eachMatch.
    eachMatch(split, text, ([piece]) => {
      total += known.getBpeRankFromString(piece) !== undefined ? 1 : known.bytePairEncode(piece).length;
      return true;
    });
    return total;
  };
}

/**
 * The same ranks keyed by bytes, built (about 200 ms) on the first long stretch only. gpt-tokenizer
 * does not export its pre-token regexes' module or rank table as API, but both are plain modules of
 * the pinned version; the tests compare every count with the library's own.
 */
function lazyLinear(encoding: EncodingName): () => LinearEncoding {
  let built: LinearEncoding | undefined;
  return () => {
    if (built) return built;
    const decoder = (require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default: RankDecoder }).default;
    const regexes = require('gpt-tokenizer/encodingParams/constants') as Record<string, RegExp>;
    const split = regexes[encoding === 'o200k_base' ? 'O200K_TOKEN_SPLIT_REGEX' : 'CL100K_TOKEN_SPLIT_REGEX'];
    if (!split) throw new Error(`gpt-tokenizer has no pre-token regex for ${encoding}`);
    const ranks = new Map<string, number>();
    decoder.forEach((token, rank) => {
      const key = (typeof token === 'string' ? Buffer.from(token, 'utf8') : Buffer.from(token)).toString(
        'latin1',
      );
      ranks.set(key, rank);
    });
    built = { pieces: new RegExp(split.source, split.flags), ranks };
    return built;
  };
}

/** Counts a stretch piece by piece with the heap merge; stops once past `limit`. */
function countLinear(text: string, limit: number, enc: LinearEncoding): number {
  let total = 0;
  eachMatch(enc.pieces, text, ([piece]) => {
    const bytes = Buffer.from(piece, 'utf8').toString('latin1');
    // A string lookup in the library: a piece with a lone surrogate is not a whole token there.
    if (enc.ranks.has(bytes) && piece.isWellFormed()) {
      total++;
    } else {
      // A piece of b bytes is at least b / MAX_TOKEN_BYTES tokens.
      const floor = Math.ceil(bytes.length / MAX_TOKEN_BYTES);
      if (total + floor > limit) {
        total += floor;
        return false;
      }
      for (let at = 0; at < bytes.length; at += MAX_MERGE_BYTES) {
        total += mergeCount(bytes.slice(at, at + MAX_MERGE_BYTES), enc.ranks);
      }
    }
    return total <= limit;
  });
  return total;
}

function chunkedTokenizer(name: TokenizerName, encoding: EncodingName): Tokenizer {
  const countTokens = lazyCount(encoding);
  const linear = lazyLinear(encoding);
  const countUpTo = (text: string, limit: number): number => {
    if (text.length > limit * MAX_TOKEN_BYTES) return Math.ceil(text.length / MAX_TOKEN_BYTES);
    let total = 0;
    let start = 0;
    while (start < text.length) {
      const end = nextChunkEnd(text, start);
      const chunk = start === 0 && end === text.length ? text : text.slice(start, end);
      // A chunk with no safe cut for twice the target could also fill the library's cache alone.
      const useLinear = chunk.length > 2 * CHUNK_TARGET || mayHoldLongPretoken(chunk);
      total += useLinear ? countLinear(chunk, limit - total, linear()) : countTokens(chunk);
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
 * cut at pre-token boundaries, so the count equals gpt-tokenizer's own; long pre-tokens (where the
 * library's merge is quadratic) are merged with a heap, so every input counts in linear time.
 *
 * @example
 * o200kTokenizer.count('<|endoftext|>'); // counted as plain text, never thrown on
 */
export const o200kTokenizer: Tokenizer = chunkedTokenizer('o200k', 'o200k_base');

/**
 * cl100k_base (GPT-4, GPT-3.5), via gpt-tokenizer, chunked like o200k.
 *
 * @example
 * cl100kTokenizer.countUpTo(bigLog, 1000); // stops reading soon after 1,000 tokens
 */
export const cl100kTokenizer: Tokenizer = chunkedTokenizer('cl100k', 'cl100k_base');
