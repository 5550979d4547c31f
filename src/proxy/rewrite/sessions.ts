import {
  ConversationEngine,
  type ConversationSettings,
  engineConfigOf,
  type ResolvedEngineConfig,
  type WithEngineConfig,
} from '../../engine/index.js';
import type { Prices } from '../../providers/index.js';
import { idPartProblem } from '../../store/index.js';
import { shortHash } from '../../text/index.js';

export interface SessionTableOptions {
  /** At most this many sessions are remembered (least recently seen go first; default 10,000). */
  maxSessions?: number;
  /** A session not seen for this long is forgotten (default 24 h). Frozen decisions stay in the store. */
  maxAgeMs?: number;
}

/** Where a request says which conversation it belongs to, most explicit first. */
export interface SessionHints {
  /** The `x-spillway-session` header. */
  header?: string | undefined;
  /** The client's own id: Claude Code's `x-claude-code-session-id` header, or one from the body. */
  client?: string | undefined;
  /** Text of the start of the conversation, for clients that send no id. */
  seed: string;
}

/**
 * The session key of a request: the `x-spillway-session` header when it is a valid id (else a
 * hash of it); else the client's own conversation id (Claude Code's session, Codex's
 * `prompt_cache_key`), hashed; only then a hash of the system prompt and first user message.
 *
 * @example
 * sessionKey({ header: 'my-session', seed: '' }); // 'my-session'
 * sessionKey({ client: 'session_0f3e', seed: '...' }); // 'c_<22 characters>'
 * sessionKey({ seed: 'system...first user message' }); // 's_<22 characters>'
 */
export function sessionKey(hints: SessionHints): string {
  const { header, client, seed } = hints;
  if (header && !idPartProblem(header)) return header;
  if (header) return `s_${shortHash(header)}`;
  if (client) return `c_${shortHash(client)}`;
  return `s_${shortHash(seed)}`;
}

/**
 * The proxy's conversations, one engine per session key, with bounded memory: a size limit and
 * an age limit, least recently seen first out. Forgetting a session loses only its in-memory
 * boundary; its frozen decisions are in the store, so a returning session still replays them.
 *
 * @example
 * const table = new SessionTable({ config, store }, { maxSessions: 1000 });
 * const conversation = table.get(sessionKey(header, seed));
 */
export class SessionTable {
  readonly #sessions = new Map<string, ConversationEngine>();
  readonly #engine: Omit<ConversationSettings, 'session'> & { config: ResolvedEngineConfig };
  readonly #maxSessions: number;
  readonly #maxAgeMs: number;

  constructor(
    engine: Omit<ConversationSettings, 'session'> & WithEngineConfig<ResolvedEngineConfig>,
    options: SessionTableOptions = {},
  ) {
    const { pipeline: _, ...settings } = engine;
    this.#engine = { ...settings, config: engineConfigOf<ResolvedEngineConfig>(engine) };
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.#maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The config's prices, over the built-in table. */
  get prices(): Readonly<Prices> {
    return this.#engine.config.prices;
  }

  /** The conversation of a session key (a new one on first sight, or after it was forgotten). */
  get(key: string, now = Date.now()): ConversationEngine {
    let conversation = this.#sessions.get(key);
    const lastSeen = conversation?.lastSeen;
    if (!conversation || (lastSeen !== undefined && now - lastSeen > this.#maxAgeMs))
      conversation = new ConversationEngine({ ...this.#engine, session: key });
    // Re-insert to keep the map in least-recently-seen order.
    this.#sessions.delete(key);
    this.#sessions.set(key, conversation);
    this.#evict(now);
    return conversation;
  }

  /** Resolves when every conversation's decisions so far are in the store (a clean shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((c) => c.flush()));
  }

  #evict(now: number): void {
    for (const [key, conversation] of this.#sessions) {
      const idle = now - (conversation.lastSeen ?? now);
      if (this.#sessions.size <= this.#maxSessions && idle <= this.#maxAgeMs) break;
      this.#sessions.delete(key);
    }
  }
}
