import { createHash } from 'node:crypto';
import { FrozenDecisions } from '../pipeline/frozen.js';
import { idPartProblem } from '../store/ids.js';
import type { Store } from '../store/store.js';

/** What the proxy remembers about one conversation. */
export interface SessionState {
  key: string;
  /** The message count of the previous turn: results before it are in the provider's cache. */
  maxCachedIdx: number;
  lastSeen: number;
  frozen: FrozenDecisions;
}

export interface SessionTableOptions {
  /** At most this many sessions are remembered (least recently seen go first; default 10,000). */
  maxSessions?: number;
  /** A session not seen for this long is forgotten (default 24 h). Frozen decisions stay in the store. */
  maxAgeMs?: number;
}

/**
 * The session key of a request: the `x-spillway-session` header when it is a valid id, else a
 * hash of it (or of the system prompt and first user message when there is no header).
 *
 * @example
 * sessionKey('my-session', ''); // 'my-session'
 * sessionKey(undefined, 'system...first user message'); // 's_<22 characters>'
 */
export function sessionKey(header: string | undefined, seed: string): string {
  if (header && !idPartProblem(header)) return header;
  return `s_${createHash('sha256')
    .update(header ?? seed)
    .digest('base64url')
    .slice(0, 22)}`;
}

/**
 * Session state with bounded memory: a size limit and an age limit, least recently seen first
 * out. Forgetting a session loses only its in-memory boundary; its frozen decisions are in the
 * store, so a returning session still replays them.
 *
 * @example
 * const table = new SessionTable(store, { maxSessions: 1000 });
 * const { state, isNew } = table.get(sessionKey(header, seed));
 */
export class SessionTable {
  readonly #sessions = new Map<string, SessionState>();
  readonly #store: Store;
  readonly #maxSessions: number;
  readonly #maxAgeMs: number;

  constructor(store: Store, options: SessionTableOptions = {}) {
    this.#store = store;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The state of a session (created on first sight), and whether it was new. */
  get(key: string, now = Date.now()): { state: SessionState; isNew: boolean } {
    let state = this.#sessions.get(key);
    const isNew = !state || now - state.lastSeen > this.#maxAgeMs;
    if (!state || isNew)
      state = { key, maxCachedIdx: 0, lastSeen: now, frozen: new FrozenDecisions(this.#store, key) };
    // Re-insert to keep the map in least-recently-seen order.
    this.#sessions.delete(key);
    this.#sessions.set(key, state);
    this.#evict(now);
    return { state, isNew };
  }

  #evict(now: number): void {
    for (const [key, state] of this.#sessions) {
      if (this.#sessions.size <= this.#maxSessions && now - state.lastSeen <= this.#maxAgeMs) break;
      this.#sessions.delete(key);
    }
  }
}
