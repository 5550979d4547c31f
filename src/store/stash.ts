import { createHash } from 'node:crypto';
import { utf8Bytes } from '../text/measure.js';
import { stashKey } from './ids.js';
import type { Store } from './store.js';

/**
 * The content address of a body: base64url of the first 16 bytes of its SHA-256 (22 characters).
 *
 * @example
 * stashId('hello'); // 'LPJNul-wow4m6Dsqxbning'
 */
export function stashId(body: string | Uint8Array): string {
  return stashIdOfDigest(contentDigest(body));
}

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
 * The stash id a digest gives: base64url of its first 16 bytes.
 *
 * @example
 * stashIdOfDigest(contentDigest('hello')); // 'LPJNul-wow4m6Dsqxbning'
 */
export function stashIdOfDigest(digest: Buffer): string {
  return digest.subarray(0, 16).toString('base64url');
}

/**
 * Stashes `body` under its content address (once: an existing entry is left as it is) and
 * returns the id a marker names.
 *
 * @example
 * const id = await stash(store, original);
 * // later: (await recall(id, { store })).text
 */
export async function stash(store: Store, body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === 'string' ? utf8Bytes(body) : body;
  const id = stashId(bytes);
  await store.putIfAbsent(stashKey(id), bytes);
  return id;
}
