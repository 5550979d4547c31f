import { SpillwayError } from '../errors.js';
import { type Original, originalOf } from '../text/index.js';
import { stashKey } from './ids.js';
import { putAllIfAbsent, type Store, type StoreEntry } from './store.js';

/**
 * Stashes an original under its content address (once: an existing entry is left as it is) and
 * returns the id a marker names, once it is durable. Whole or not at all: over the store's
 * `maxFileBytes` it throws `SPILLWAY_QUOTA`. The stashes asked for in one turn of the event loop
 * are written together (one lock, their flushes side by side); when that fails each is tried on
 * its own, so a failure is only ever its own. The one way anything is stashed: stages, session
 * pruning and the CLI all come here.
 *
 * @example
 * const id = await stashOriginal(store, originalOf(hugeLog));
 */
export function stashOriginal(store: Store, original: Original): Promise<string> {
  let body: Uint8Array;
  try {
    body = stashableBody(store, original);
  } catch (err) {
    return Promise.reject(err);
  }
  const id = original.id();
  let queue = queued.get(store);
  if (!queue) {
    const fresh = new Map<string, Queued>();
    queued.set(store, fresh);
    queue = fresh;
    setImmediate(() => void writeQueued(store, fresh));
  }
  const entry = queue.get(id) ?? { key: stashKey(id), body, waiters: [] };
  queue.set(id, entry);
  return new Promise((resolve, reject) => entry.waiters.push({ resolve: () => resolve(id), reject }));
}

/** A stash asked for and not written yet, and who waits for it. */
interface Queued extends StoreEntry {
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

// Stashes asked for in one turn of the event loop, per store: a turn that stashes several
// originals (a mask batch, several large results) writes them together, under one lock with
// their flushes side by side, instead of one locked and flushed put after another.
const queued = new WeakMap<Store, Map<string, Queued>>();

async function writeQueued(store: Store, queue: Map<string, Queued>): Promise<void> {
  if (queued.get(store) === queue) queued.delete(store);
  const entries = [...queue.values()];
  const written = (entry: Queued) => {
    for (const w of entry.waiters) w.resolve();
  };
  const failed = (entry: Queued, err: unknown) => {
    for (const w of entry.waiters) w.reject(err);
  };
  try {
    if (entries.length === 1)
      await store.putIfAbsent((entries[0] as Queued).key, (entries[0] as Queued).body);
    else await putAllIfAbsent(store, entries);
    for (const entry of entries) written(entry);
  } catch (err) {
    if (entries.length === 1) return failed(entries[0] as Queued, err);
    // One by one: each stash succeeds or fails on its own (a quota that takes some, not all).
    await Promise.all(
      entries.map((entry) =>
        store.putIfAbsent(entry.key, entry.body).then(
          () => written(entry),
          (e: unknown) => failed(entry, e),
        ),
      ),
    );
  }
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
