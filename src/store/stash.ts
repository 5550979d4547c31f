import { SpillwayError } from '../errors.js';
import { type Original, originalOf } from '../text/content-hash.js';
import { stashKey } from './ids.js';
import { putAllIfAbsent, type Store } from './store.js';

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
  const body = stashableBody(store, original);
  const key = stashKey(original.id());
  await store.putIfAbsent(key, body);
  return key.name;
}

/**
 * A marker promises the full output: an original the store would cut is not stashed at all, so
 * the stage that asked says plainly that nothing can be recalled.
 */
function stashableBody(store: Store, original: Original): Uint8Array {
  const body = original.body();
  if (body.length > store.limits.maxFileBytes)
    throw new SpillwayError(
      'SPILLWAY_QUOTA',
      `the output is ${body.length} bytes, over the store's limit of ${store.limits.maxFileBytes} bytes for one entry; it was not saved`,
    );
  return body;
}

/**
 * Stashes gathered now and stored together by {@link StashBatch.flush}: for a pass over many
 * results (session pruning), which must flush before anything naming the ids is written.
 *
 * @example
 * const batch = new StashBatch(store);
 * const id = batch.add(middle); // the id now, the bytes at flush
 * await batch.flush();
 */
export class StashBatch {
  readonly #pending = new Map<string, Uint8Array>();
  constructor(readonly store: Store) {}

  add(body: string | Uint8Array): string {
    const original = typeof body === 'string' ? originalOf(body) : originalOf('', toBuffer(body));
    const bytes = stashableBody(this.store, original);
    const id = original.id();
    this.#pending.set(id, bytes);
    return id;
  }

  /** Stores what was added; afterwards every id `add` returned can be recalled. */
  async flush(): Promise<void> {
    const entries = [...this.#pending].map(([id, body]) => ({ key: stashKey(id), body }));
    await putAllIfAbsent(this.store, entries);
    this.#pending.clear();
  }
}

function toBuffer(body: Uint8Array): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Stashes `body` under its content address and returns the id a marker names.
 *
 * @example
 * const id = await stash(store, original);
 * // later: (await recall(id, { store })).text
 */
export async function stash(store: Store, body: string | Uint8Array): Promise<string> {
  return stashOriginal(store, typeof body === 'string' ? originalOf(body) : originalOf('', toBuffer(body)));
}
