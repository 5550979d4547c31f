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
  return createHash('sha256').update(body).digest().subarray(0, 16).toString('base64url');
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
