import { SpillwayError } from '../../errors.js';
import { stashId } from '../../text/index.js';
import { STASH_DIR, type StoreKey } from '../ids.js';
import type { ByteRange, Store } from '../store.js';

/** A stash entry's name is its content address: 22 base64url characters of its SHA-256. */
const CONTENT_ADDRESS = /^[A-Za-z0-9_-]{22}$/;

// Bodies checked against their id, newest last: a content address names exactly one body, so a
// checked one stays right however the stored bytes change later, and paging an original reads
// and hashes it once, not once a page.
const checked: { store: Store; id: string; body: Buffer }[] = [];
const MAX_CHECKED_BYTES = 64 * 1024 * 1024;

function checkedBody(store: Store, id: string): Buffer | undefined {
  const at = checked.findIndex((c) => c.store === store && c.id === id);
  if (at < 0) return undefined;
  const [hit] = checked.splice(at, 1);
  checked.push(hit as (typeof checked)[number]);
  return hit?.body;
}

function remember(store: Store, id: string, body: Buffer): void {
  // The newest stays even past the budget (a store may allow larger bodies): paging it must
  // not read and hash the whole of it again for every page.
  checked.push({ store, id, body });
  let bytes = checked.reduce((n, c) => n + c.body.length, 0);
  while (bytes > MAX_CHECKED_BYTES && checked.length > 1) bytes -= checked.shift()?.body.length ?? 0;
}

/**
 * Reads a stored original for recall. A stash entry (content-addressed) is checked against the
 * hash its id names, whole, before any byte of it is returned: bytes written into the store by
 * anything but spillway (a command that could write there) are refused with
 * `SPILLWAY_TAMPERED`, never handed to the model as the original. Spills (`session/call`) are
 * not content-addressed and are read as they are.
 *
 * @example
 * const page = await readOriginal(store, stashKey(id), { start: 0, end: 4096 });
 */
export async function readOriginal(store: Store, key: StoreKey, range?: ByteRange): Promise<Buffer | null> {
  if (key.dir !== STASH_DIR || !CONTENT_ADDRESS.test(key.name)) return store.get(key, range);
  let body = checkedBody(store, key.name);
  if (!body) {
    const read = await store.get(key);
    if (!read) return null;
    if (stashId(read) !== key.name)
      throw new SpillwayError(
        'SPILLWAY_TAMPERED',
        `the stored original "${key.name}" was changed after it was stashed (its bytes no longer match the hash its id names); it is not returned. Delete it (spillway prune) and run the command again for its output`,
      );
    body = read;
    remember(store, key.name, body);
  }
  if (!range) return body;
  return body.subarray(Math.min(range.start, body.length), Math.min(range.end, body.length));
}
