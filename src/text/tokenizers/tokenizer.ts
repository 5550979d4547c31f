/**
 * One interface for every way spillway counts tokens.
 *
 * @example
 * const t = getTokenizer('o200k');
 * t.count('hello world'); // 2
 * t.countUpTo(hugeLog, 2000) > 2000; // true as soon as 2,001 tokens are seen; the rest is not read
 */
export interface Tokenizer {
  /** The name users pass on the command line and in config: `o200k`, `cl100k`, `heuristic`. */
  readonly name: TokenizerName;
  /**
   * Exact count of `text` (special-token strings count as plain text). Never more than the
   * text's UTF-8 bytes (callers rely on it to skip counting what plainly fits).
   */
  count(text: string): number;
  /**
   * The exact count when it is at most `limit`; otherwise some number greater than `limit`,
   * found without reading the whole text.
   */
  countUpTo(text: string, limit: number): number;
}

/** The tokenizers spillway ships. */
export const TOKENIZER_NAMES = ['o200k', 'cl100k', 'heuristic'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

/** The default everywhere: exact for current OpenAI models, a close estimate for the others. */
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k';

/**
 * Type guard for tokenizer names given by users.
 *
 * @example
 * isTokenizerName('o200k'); // true
 * isTokenizerName('gpt2'); // false
 */
export function isTokenizerName(name: string): name is TokenizerName {
  return (TOKENIZER_NAMES as readonly string[]).includes(name);
}
