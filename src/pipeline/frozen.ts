import { randomBytes } from 'node:crypto';
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
function entryOf(value: unknown): FrozenEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { content, stashId: id } = value as Record<string, unknown>;
  const contentOk = content === undefined || typeof content === 'string' || Array.isArray(content);
  return contentOk && (id === undefined || typeof id === 'string') ? (value as FrozenEntry) : undefined;
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

// Decisions are written in batches, one store entry per batch, named with this prefix (under
// FROZEN_PREFIX, so retention sees the stash ids they name). Older stores hold one entry per
// decision under FROZEN_PREFIX + hash; those are still read.
const BATCH_PREFIX = `${FROZEN_PREFIX}batch_`;
// Past this many batches, the next flush writes one batch of everything and removes the rest.
const MAX_BATCHES = 64;

// Flushes under way, per store and session: a new FrozenDecisions for the same session (a new
// engine in this process) waits for them before it loads, so it sees every decision made here.
const inFlight = new WeakMap<Store, Map<string, Promise<void>>>();

/**
 * Frozen decisions of one session, keyed by (tool call id, hash of the original), kept in the
 * store beside the session's spills (so they survive a restart and expire with the session),
 * with an in-memory cache in front.
 *
 * Writing is off the request's path: `set` records the decision in memory and queues it; the
 * queue is written as one batch entry after the current turn (one store write per turn, however
 * many results), and a failed batch is retried with the next. What a crash can lose is the
 * decisions of the turns whose batch was not written yet: their results are decided again on
 * the next turn. The originals their markers name are stashed (and durable) before any marker
 * is sent, so no marker ever names something that cannot be recalled.
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
  readonly #pending = new Map<string, FrozenEntry>();
  /** Single-decision entries of older stores, by name (read on demand). */
  #singles = new Set<string>();
  #batches: string[] = [];
  #loaded: Promise<void> | undefined;
  #scheduled = false;
  #failures = 0;
  #writes: Promise<void> = Promise.resolve();

  constructor(store: Store, session: string) {
    assertIdPart('session', session);
    this.#store = store;
    this.#session = session;
  }

  #name(callId: string, originalHash: string): string {
    return `${FROZEN_PREFIX}${stashId(`${callId}\0${originalHash}`)}`;
  }

  /**
   * Reads the session's batches once, after the flushes of this process still under way (not
   * when called from a flush: it would wait for itself).
   */
  #load(afterFlushes = true): Promise<void> {
    this.#loaded ??= (async () => {
      if (afterFlushes) await inFlight.get(this.#store)?.get(this.#session);
      let names: string[];
      try {
        names = (await this.#store.list(this.#session)).map((e) => e.name);
      } catch {
        // A store that cannot answer (Redis gone) means "nothing frozen" for now; look again later.
        this.#loaded = undefined;
        return;
      }
      this.#batches = names.filter((n) => n.startsWith(BATCH_PREFIX)).sort();
      this.#singles = new Set(
        names.filter((n) => n.startsWith(FROZEN_PREFIX) && !n.startsWith(BATCH_PREFIX)),
      );
      for (const name of this.#batches) {
        const body = await this.#store.get({ dir: this.#session, name }).catch(() => null);
        const batch = body ? parsed(body) : undefined;
        if (typeof batch !== 'object' || batch === null) {
          // A damaged batch is dropped; its results are decided again like new ones.
          await this.#store.delete({ dir: this.#session, name }).catch(() => {});
          continue;
        }
        for (const [key, value] of Object.entries(batch)) {
          const entry = entryOf(value);
          if (entry && !this.#cache.has(key)) this.#cache.set(key, entry);
        }
      }
    })();
    return this.#loaded;
  }

  /** The decision frozen for this call and original (`originalHash` from {@link contentHash}). */
  async get(callId: string, originalHash: string): Promise<FrozenEntry | undefined> {
    const name = this.#name(callId, originalHash);
    if (!this.#cache.has(name)) await this.#load();
    if (this.#cache.has(name)) return this.#cache.get(name) ?? undefined;
    if (!this.#singles.has(name)) return undefined;
    const body = await this.#store.get({ dir: this.#session, name }).catch(() => null);
    const entry = body ? entryOf(parsed(body)) : undefined;
    if (entry === undefined) {
      // A damaged decision is not replayed and not left to fail every turn: it is removed, and
      // the result is decided again like a new one.
      await this.#store.delete({ dir: this.#session, name }).catch(() => {});
      this.#singles.delete(name);
      return undefined;
    }
    this.#cache.set(name, entry);
    return entry;
  }

  /** Records a decision now (this process replays it at once) and queues it for the store. */
  async set(callId: string, originalHash: string, entry: FrozenEntry): Promise<void> {
    const name = this.#name(callId, originalHash);
    this.#cache.set(name, entry);
    this.#pending.set(name, entry);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // After the turn (its other decisions are queued by then), all of them go out in one batch.
    const turn = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#scheduled = false;
      return this.#write();
    });
    this.#track(turn);
  }

  /** Chains a write after the ones under way, and lets a new loader of the session wait for it. */
  #track(write: Promise<void>): void {
    this.#writes = this.#writes.then(() => write);
    const sessions = inFlight.get(this.#store) ?? new Map<string, Promise<void>>();
    inFlight.set(this.#store, sessions);
    const all = Promise.all([sessions.get(this.#session), this.#writes]).then(() => {});
    sessions.set(this.#session, all);
    void all.then(() => {
      if (sessions.get(this.#session) === all) sessions.delete(this.#session);
    });
  }

  /** How many batches failed to be written since the last call (they are retried). */
  takeFailures(): number {
    const failures = this.#failures;
    this.#failures = 0;
    return failures;
  }

  /** Resolves when every decision set so far is in the store (or its write has failed). */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#pending.size > 0 && !this.#scheduled) {
      this.#track(this.#write());
      await this.#writes;
    }
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    await this.#load(false);
    const compact = this.#batches.length >= MAX_BATCHES;
    const entries = compact
      ? new Map([...this.#cache].filter((e): e is [string, FrozenEntry] => e[1] !== null))
      : new Map(this.#pending);
    this.#pending.clear();
    const name = `${BATCH_PREFIX}${Date.now().toString(36).padStart(9, '0')}_${randomBytes(4).toString('hex')}`;
    try {
      await this.#store.put(
        { dir: this.#session, name },
        Buffer.from(JSON.stringify(Object.fromEntries(entries)), 'utf8'),
        { durable: false },
      );
    } catch {
      this.#failures++;
      for (const [key, entry] of entries) if (!this.#pending.has(key)) this.#pending.set(key, entry);
      return;
    }
    if (compact) {
      for (const old of this.#batches)
        await this.#store.delete({ dir: this.#session, name: old }).catch(() => {});
      this.#batches = [];
    }
    this.#batches.push(name);
  }
}
