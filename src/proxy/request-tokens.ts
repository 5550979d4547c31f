import { createHash } from 'node:crypto';
import type { ApiName } from '../formats/types.js';
import { arrayItemSpans } from '../text/json-splice.js';
import type { Tokenizer } from '../text/tokenizers/tokenizer.js';

/** Where each API keeps the conversation: counted item by item, so old items are counted once. */
const CONVERSATION_KEY: Record<ApiName, string> = {
  anthropic: 'messages',
  'openai-chat': 'messages',
  'openai-responses': 'input',
  gemini: 'contents',
};

/**
 * Counts the tokens of whole request bodies of one conversation, remembering the count of each
 * message it has seen (by the hash of its bytes): each turn repeats the turns before it, so a
 * turn costs about the count of what is new in it. The count is of the JSON as sent, which the
 * provider's own count differs from by a near-constant factor (see Calibration).
 *
 * @example
 * const tokens = new RequestTokens(getTokenizer('o200k'));
 * tokens.count('anthropic', body); // counts every message
 * tokens.count('anthropic', nextBody); // counts the new messages only
 */
export class RequestTokens {
  readonly #tokenizer: Tokenizer;
  readonly #memo = new Map<string, number>();
  readonly #max: number;

  /** `max` bounds the memory: that many messages' counts at most (a Map entry each). */
  constructor(tokenizer: Tokenizer, max = 50_000) {
    this.#tokenizer = tokenizer;
    this.#max = max;
  }

  count(api: ApiName, body: Buffer): number {
    const spans = arrayItemSpans(body, CONVERSATION_KEY[api]);
    if (!spans) return this.#countBytes(body, 0, body.length);
    let total = 0;
    let at = 0;
    for (const span of spans) {
      total += this.#countBytes(body, at, span.start) + this.#countBytes(body, span.start, span.end);
      at = span.end;
    }
    return total + this.#countBytes(body, at, body.length);
  }

  #countBytes(body: Buffer, start: number, end: number): number {
    if (end - start < 64) return end > start ? this.#tokenizer.count(body.toString('utf8', start, end)) : 0;
    const key = createHash('sha256').update(body.subarray(start, end)).digest('base64url');
    let n = this.#memo.get(key);
    if (n === undefined) {
      n = this.#tokenizer.count(body.toString('utf8', start, end));
      if (this.#memo.size >= this.#max) this.#memo.clear();
      this.#memo.set(key, n);
    }
    return n;
  }
}
