import { assertIdPart, FROZEN_PREFIX } from '../store/ids.js';
import type { Store } from '../store/store.js';
import type { Content } from '../text/blocks.js';
import { stashId } from '../text/content-hash.js';

/** A decision recorded so later turns replay the same bytes. */
export interface FrozenEntry {
  /** The content to send; absent when the result goes out unchanged. */
  content?: Content;
  /** The stage whose output this is. */
  stage?: string;
  stashId?: string;
}

/** A stored decision, or undefined when its bytes are not one. */
function entryOf(body: Buffer): FrozenEntry | undefined {
  try {
    const entry = JSON.parse(body.toString('utf8')) as unknown;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
    const { content, stashId: id } = entry as Record<string, unknown>;
    const contentOk = content === undefined || typeof content === 'string' || Array.isArray(content);
    return contentOk && (id === undefined || typeof id === 'string') ? (entry as FrozenEntry) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Frozen decisions of one session, keyed by (tool call id, hash of the original), kept in the
 * store beside the session's spills (so they survive a restart and expire with the session),
 * with an in-memory cache in front.
 *
 * @example
 * const frozen = new FrozenDecisions(store, 'sess-1');
 * await frozen.set('toolu_01', contentHash(original), { content: collapsed, stage: 'collapse' });
 * (await frozen.get('toolu_01', contentHash(original)))?.content === collapsed; // true
 */
export class FrozenDecisions {
  readonly #store: Store;
  readonly #session: string;
  readonly #cache = new Map<string, FrozenEntry | null>();

  constructor(store: Store, session: string) {
    assertIdPart('session', session);
    this.#store = store;
    this.#session = session;
  }

  #name(callId: string, originalHash: string): string {
    return `${FROZEN_PREFIX}${stashId(`${callId}\0${originalHash}`)}`;
  }

  /** The decision frozen for this call and original (`originalHash` from {@link contentHash}). */
  async get(callId: string, originalHash: string): Promise<FrozenEntry | undefined> {
    const name = this.#name(callId, originalHash);
    if (this.#cache.has(name)) return this.#cache.get(name) ?? undefined;
    let body: Buffer | null;
    try {
      body = await this.#store.get({ dir: this.#session, name });
    } catch {
      // A store that cannot answer (Redis gone) means "nothing frozen" for now, not remembered:
      // the result is left as it is in the cached prefix, and decided anew in the tail.
      return undefined;
    }
    const entry = body ? entryOf(body) : null;
    if (entry === undefined) {
      // A damaged decision (a torn write, a bad disk) is not replayed and not left to fail every
      // turn: it is removed, and the result is decided again like a new one.
      await this.#store.delete({ dir: this.#session, name }).catch(() => {});
      return undefined;
    }
    this.#cache.set(name, entry);
    return entry ?? undefined;
  }

  async set(callId: string, originalHash: string, entry: FrozenEntry): Promise<void> {
    const name = this.#name(callId, originalHash);
    // Cached first: even if the store cannot take it, this process keeps replaying it.
    this.#cache.set(name, entry);
    await this.#store.put({ dir: this.#session, name }, Buffer.from(JSON.stringify(entry), 'utf8'), {
      durable: false,
    });
  }
}
