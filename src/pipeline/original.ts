import { contentDigest, stashIdOfDigest } from '../store/stash.js';
import { type Content, contentText } from '../text/blocks.js';
import { utf8Bytes } from '../text/measure.js';

/**
 * The original of a tool result as stashes and frozen decisions see it, encoded and hashed at
 * most once however many stages and lookups ask (for a 15 MB result that is the difference
 * between one pass and five).
 */
export interface Original {
  /** UTF-8 of its text, or of the JSON of rich blocks: what a stash holds. */
  body(): Buffer;
  /** The recall id: base64url of the first 16 bytes of the SHA-256 of `body()`. */
  id(): string;
  /** The full SHA-256 of `body()`, base64url: what frozen decisions and dedup key on. */
  hash(): string;
}

/**
 * Lazily encodes and hashes content.
 *
 * @example
 * const o = originalOf('hello');
 * o.id(); // 'LPJNul-wow4m6Dsqxbning' (the same as stashId('hello'))
 */
export function originalOf(content: Content): Original {
  let body: Buffer | undefined;
  let digest: Buffer | undefined;
  const bodyOf = () => {
    body ??= utf8Bytes(contentText(content));
    return body;
  };
  const digestOf = () => {
    digest ??= contentDigest(bodyOf());
    return digest;
  };
  return {
    body: bodyOf,
    id: () => stashIdOfDigest(digestOf()),
    hash: () => digestOf().toString('base64url'),
  };
}

/**
 * The hash frozen decisions key on.
 *
 * @example
 * contentHash('hello') === contentHash([{ type: 'text', text: 'hello' }]); // true: same text
 */
export function contentHash(content: Content): string {
  return originalOf(content).hash();
}
