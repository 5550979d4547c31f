import { SpillwayError } from '../errors.js';
import { type Original, originalOf } from '../text/content-hash.js';
import { stashKey } from './ids.js';
import type { Store } from './store.js';

/**
 * Stashes an original under its content address (once: an existing entry is left as it is) and
 * returns the id a marker names. Whole or not at all: over the store's `maxFileBytes` it throws
 * `SPILLWAY_QUOTA`. The one way anything is stashed: stages, session pruning and
 * the CLI all come here.
 *
 * @example
 * const id = await stashOriginal(store, originalOf(hugeLog));
 */
export async function stashOriginal(store: Store, original: Original): Promise<string> {
  const key = stashKey(original.id());
  const body = original.body();
  // A marker promises the full output: an original the store would cut is not stashed at all,
  // so the stage that asked says plainly that nothing can be recalled.
  if (body.length > store.limits.maxFileBytes)
    throw new SpillwayError(
      'SPILLWAY_QUOTA',
      `the output is ${body.length} bytes, over the store's limit of ${store.limits.maxFileBytes} bytes for one entry; it was not saved`,
    );
  await store.putIfAbsent(key, body);
  return key.name;
}

/**
 * Stashes `body` under its content address and returns the id a marker names.
 *
 * @example
 * const id = await stash(store, original);
 * // later: (await recall(id, { store })).text
 */
export async function stash(store: Store, body: string | Uint8Array): Promise<string> {
  if (typeof body === 'string') return stashOriginal(store, originalOf(body));
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return stashOriginal(store, originalOf('', bytes));
}
