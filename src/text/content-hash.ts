import { createHash } from 'node:crypto';
import { type Content, contentText } from './blocks.js';
import { storedBytes } from './stored-text.js';

/**
 * The SHA-256 of a body: what stash ids (its first 16 bytes) and frozen-decision keys derive from.
 *
 * @example
 * stashIdOfDigest(contentDigest('hello')) === stashId('hello'); // true
 */
export function contentDigest(body: string | Uint8Array): Buffer {
  return createHash('sha256').update(body).digest();
}

/**
 * The stash id a digest gives: base64url of its first 16 bytes (22 characters).
 *
 * @example
 * stashIdOfDigest(contentDigest('hello')); // 'LPJNul-wow4m6Dsqxbning'
 */
export function stashIdOfDigest(digest: Buffer): string {
  return digest.subarray(0, 16).toString('base64url');
}

/**
 * The content address of a body: base64url of the first 16 bytes of its SHA-256.
 *
 * @example
 * stashId('hello'); // 'LPJNul-wow4m6Dsqxbning'
 */
export function stashId(body: string | Uint8Array): string {
  return stashIdOfDigest(contentDigest(body));
}

/**
 * A short, stable name for a text (22 base64url characters of its SHA-256), for keys that must
 * be valid ids whatever the text holds: session keys, replay sessions.
 *
 * @example
 * shortHash('system prompt\u0000first message'); // 22 characters of [A-Za-z0-9_-]
 */
export function shortHash(text: string): string {
  return contentDigest(text).toString('base64url').slice(0, 22);
}

/**
 * The original of a tool result as stashes and frozen decisions see it, encoded and hashed at
 * most once however many stages and lookups ask (for a 15 MB result that is the difference
 * between one pass and five).
 */
export interface Original {
  /** UTF-8 of its text, or of the JSON of rich blocks (or the exact bytes given): what a stash holds. */
  body(): Buffer;
  /** The recall id: base64url of the first 16 bytes of the SHA-256 of `body()`. */
  id(): string;
  /** The full SHA-256 of `body()`, base64url: what frozen decisions and dedup key on. */
  hash(): string;
}

/**
 * Lazily encodes and hashes content. `bytes`, when given, is the exact original (input that is
 * not valid UTF-8 keeps its own bytes, so a recall gives back what was read, not its decoding).
 *
 * @example
 * const o = originalOf('hello');
 * o.id(); // 'LPJNul-wow4m6Dsqxbning' (the same as stashId('hello'))
 */
export function originalOf(content: Content, bytes?: Buffer): Original {
  let body: Buffer | undefined = bytes;
  let digest: Buffer | undefined;
  const bodyOf = () => {
    body ??= storedBytes(contentText(content));
    return body;
  };
  const digestOf = () => {
    if (digest) return digest;
    const text = body === undefined ? contentText(content) : undefined;
    // A short well-formed text hashes to the same digest as its UTF-8: no bytes built first
    // (most results are short, and are never stashed).
    digest =
      text !== undefined && text.length <= DIRECT_HASH_CHARS && text.isWellFormed()
        ? contentDigest(text)
        : contentDigest(bodyOf());
    return digest;
  };
  return {
    body: bodyOf,
    id: () => stashIdOfDigest(digestOf()),
    hash: () => digestOf().toString('base64url'),
  };
}

const DIRECT_HASH_CHARS = 64 * 1024;

/**
 * The hash frozen decisions key on.
 *
 * @example
 * contentHash('hello') === contentHash([{ type: 'text', text: 'hello' }]); // true: same text
 */
export function contentHash(content: Content): string {
  return originalOf(content).hash();
}
