import { assertIdPart, type StoreKey } from '../ids.js';
import { DEFAULT_LIMITS, type EntryInfo, type PutResult, type Store, type StoreLimits } from '../store.js';

/**
 * A {@link Store} that keeps nothing: every write is accepted and dropped, every read finds
 * nothing. What `--observe` runs the engine against, so measuring what would be saved writes
 * no stash and no frozen decision anywhere.
 *
 * @example
 * const store = new DiscardStore();
 * await store.put({ dir: 's', name: 'c' }, Buffer.from('x')); // accepted, not kept
 * await store.get({ dir: 's', name: 'c' }); // null
 */
export class DiscardStore implements Store {
  readonly kind = 'discard';
  readonly limits: Readonly<StoreLimits> = DEFAULT_LIMITS;

  async put(key: StoreKey, body: Uint8Array): Promise<PutResult> {
    assertIdPart('directory', key.dir);
    assertIdPart('entry', key.name);
    return { storedBytes: body.length, totalBytes: body.length, truncated: false };
  }

  async putIfAbsent(key: StoreKey, body: Uint8Array): Promise<boolean> {
    await this.put(key, body);
    return true;
  }

  async append(key: StoreKey, body: Uint8Array): Promise<void> {
    await this.put(key, body);
  }

  async get(): Promise<Buffer | null> {
    return null;
  }

  async stat(): Promise<EntryInfo | null> {
    return null;
  }

  async list(): Promise<EntryInfo[]> {
    return [];
  }

  async delete(): Promise<boolean> {
    return false;
  }
}
