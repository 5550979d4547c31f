import { createHash, type Hash } from 'node:crypto';
import { type ApiName, PROVIDERS } from '../../providers/index.js';
import { arrayItemSpans, arrayItemSpansAfter } from '../../text/index.js';
import {
  countUtf8UpTo,
  knownCountUpTo,
  rememberedCount,
  type Tokenizer,
} from '../../text/tokenizers/index.js';

/**
 * What was counted of a conversation's last body: its bytes up to the end of its last message
 * (their hash) and their tokens. A client that keeps the prompt cache sends those bytes again,
 * first, in its next body; only what follows them is read then.
 */
interface CountedPrefix {
  key: string;
  end: number;
  digest: Buffer;
  tokens: number;
  /** The cap its count was made under (see `count`), and its largest piece as counted. */
  cap: number;
  largest: number;
}

/**
 * True when a prefix counted under one cap holds the same count under `cap`: the same cap, or
 * no piece past either (a piece past its cap counts as cap + 1).
 */
function holdsUnder(prefix: CountedPrefix, cap: number): boolean {
  return prefix.largest > prefix.cap ? prefix.cap === cap : prefix.largest <= cap;
}

/**
 * Counts the tokens of whole request bodies of one conversation, remembering the count of each
 * message it has seen (by the hash of its bytes): each turn repeats the turns before it, so a
 * turn costs about the count of what is new in it. Given the conversation, it also remembers
 * where its last body's messages ended: a next body that starts with the same bytes is read
 * only after them (one hash of the prefix, instead of finding and hashing every message). The
 * count is of the JSON as sent, which the provider's own count differs from by a near-constant
 * factor (see Calibration).
 *
 * @example
 * const tokens = new RequestTokens(getTokenizer('o200k'));
 * tokens.count('anthropic', body, conversation); // counts every message
 * tokens.count('anthropic', nextBody, conversation); // reads and counts the new messages only
 */
export class RequestTokens {
  readonly #tokenizer: Tokenizer;
  readonly #memo = new Map<string, number>();
  readonly #max: number;
  /** Per conversation (gone with it): where its last body's messages ended. */
  readonly #prefixes = new WeakMap<object, CountedPrefix>();

  /** `max` bounds the memory: that many messages' counts at most (a Map entry each). */
  constructor(tokenizer: Tokenizer, max = 50_000) {
    this.#tokenizer = tokenizer;
    this.#max = max;
  }

  /**
   * The body's tokens, each message counted exactly up to `cap` tokens and as `cap + 1` past it
   * (the window guard's `cappedCount`: a message past the window is not read to its end).
   */
  count(api: ApiName, body: Buffer, conversation?: object, cap = Number.POSITIVE_INFINITY): number {
    // Where the API keeps the conversation: counted item by item, so old items are counted once.
    const key = PROVIDERS.of(api).conversationKey;
    const known = conversation && this.#prefixes.get(conversation);
    // The guard counts under the window's cap, the calibration after the answer under a larger
    // one: a prefix where no piece reached either serves both.
    const resumed = known && holdsUnder(known, cap) ? this.#after(known, key, body) : undefined;
    const spans = resumed?.spans ?? arrayItemSpans(body, key);
    if (!spans) return this.#countBytes(body, 0, body.length, cap);
    const from = resumed ?? { end: 0, tokens: 0, hash: createHash('sha256'), largest: 0 };
    let { tokens: total, largest } = from;
    let at = from.end;
    for (const span of spans) {
      const between = this.#countBytes(body, at, span.start, cap);
      const message = this.#countBytes(body, span.start, span.end, cap);
      total += between + message;
      largest = Math.max(largest, between, message);
      at = span.end;
    }
    if (conversation && at > 0) {
      const digest = from.hash.update(body.subarray(from.end, at)).digest();
      this.#prefixes.set(conversation, { key, end: at, digest, tokens: total, cap, largest });
    }
    return total + this.#countBytes(body, at, body.length, cap);
  }

  /**
   * Where to go on from in `body` when it starts with the bytes counted last time (up to the end
   * of their last message) and nothing after its messages array could replace it (a second
   * array under the same name, which JSON.parse would take): the messages after those, and the
   * prefix's tokens and hash so far.
   */
  #after(
    known: CountedPrefix,
    key: string,
    body: Buffer,
  ):
    | {
        end: number;
        tokens: number;
        hash: Hash;
        largest: number;
        spans: { start: number; end: number }[];
      }
    | undefined {
    if (known.key !== key || body.length <= known.end) return undefined;
    const hash = createHash('sha256').update(body.subarray(0, known.end));
    if (!hash.copy().digest().equals(known.digest)) return undefined;
    const after = arrayItemSpansAfter(body, known.end);
    if (!after || body.indexOf(`"${key}"`, after.close) >= 0) return undefined;
    const { end, tokens, largest } = known;
    return { end, tokens, hash, largest, spans: after.spans };
  }

  #countBytes(body: Buffer, start: number, end: number, cap: number): number {
    if (end - start < 64) return end > start ? this.#tokenizer.count(body.toString('utf8', start, end)) : 0;
    const key = createHash('sha256').update(body.subarray(start, end)).digest('base64url');
    let n = knownCountUpTo(this.#memo.get(key), cap);
    if (n === undefined) {
      n = countUtf8UpTo(this.#tokenizer, body.subarray(start, end), cap);
      if (this.#memo.size >= this.#max) this.#memo.clear();
      this.#memo.set(key, rememberedCount(n, cap));
    }
    return Math.min(n, cap + 1);
  }
}
