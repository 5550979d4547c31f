import { randomUUID } from 'node:crypto';
import { assertIdPart, FROZEN_PREFIX, type Store } from '../store/index.js';
import { stashId } from '../text/index.js';
import {
  entryOf,
  type FrozenEntry,
  laterMark,
  parsed,
  recordOf,
  TURN_KEY,
  type TurnMark,
  WRITER_KEY,
} from './frozen-records.js';

export type { FrozenEntry, TurnMark } from './frozen-records.js';

// Decisions are appended to one log entry per session, a record (one line of JSON) per turn.
// It starts with FROZEN_PREFIX, so retention sees the stash ids it names. Older stores hold
// batch entries (FROZEN_PREFIX + "batch_") or one entry per decision (FROZEN_PREFIX + hash):
// those are still read.
const LOG_NAME = `${FROZEN_PREFIX}log`;
const BATCH_PREFIX = `${FROZEN_PREFIX}batch_`;
/** Decision names a session remembers; past this many (a session of that many results) it starts over. */
const MAX_NAMES = 100_000;

/**
 * Runs `fn` once the event loop has handled the I/O that is ready now (an immediate queued from
 * an immediate waits for the next poll): writing decisions is the least urgent work there is,
 * and an answer just written, or a request just arrived, goes first.
 */
function afterReadyIo(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

// The decision logs of this process with decisions not written yet, per store and session: a new
// FrozenDecisions for the same session (a new engine in this process) has them written before
// it loads, so it sees every decision made here, even one held back until an answer ends.
const unwritten = new WeakMap<Store, Map<string, Set<FrozenDecisions>>>();

/**
 * Frozen decisions of one session, keyed by (tool call id, hash of the original), kept in the
 * store beside the session's spills (so they survive a restart and expire with the session),
 * with an in-memory cache in front.
 *
 * Writing is off the request's path: `set` records the decision in memory and queues it; after
 * the turn (in the proxy, after the request's answer), the queue is appended to the session's
 * decisions log as one record (one small append per turn however many results: no lock, no
 * rewrite, no flush to disk), and a refused append is retried with the next turn. A record
 * starts on a line of its own, so one cut short by a crash costs only its own decisions. What a
 * crash can lose is the decisions of the turns whose record was not written yet: their results
 * are decided again on the next turn. The originals their markers name are stashed (and
 * durable) before any marker is sent, so no marker ever names something that cannot be
 * recalled.
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
  /** Decisions (and the turn mark, under TURN_KEY) not written yet. */
  readonly #pending = new Map<string, FrozenEntry | TurnMark>();
  /** The stages whose decisions the session holds (a turn asks before looking for them). */
  readonly #stages = new Set<string>();
  /** Single-decision entries of older stores, by name (read on demand). */
  #singles = new Set<string>();
  #loaded: Promise<void> | undefined;
  /** Bytes of the log taken in so far (refresh reads on from here). */
  #offset = 0;
  #turn: TurnMark | undefined;
  /** Names this process's records in a shared log. */
  readonly #writer = randomUUID();
  #scheduled = false;
  #failures = 0;
  #writes: Promise<void> = Promise.resolve();

  constructor(store: Store, session: string) {
    assertIdPart('session', session);
    this.#store = store;
    this.#session = session;
  }

  /** Names already made: every turn looks up every earlier result, each name is a SHA-256. */
  readonly #names = new Map<string, string>();

  #name(callId: string, originalHash: string): string {
    const key = `${callId}\0${originalHash}`;
    let name = this.#names.get(key);
    if (name === undefined) {
      name = `${FROZEN_PREFIX}${stashId(key)}`;
      if (this.#names.size >= MAX_NAMES) this.#names.clear();
      this.#names.set(key, name);
    }
    return name;
  }

  /** Reads the session's decisions once, after other engines of it in this process wrote theirs. */
  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const others = unwritten.get(this.#store)?.get(this.#session) ?? [];
      await Promise.all([...others].filter((other) => other !== this).map((other) => other.flush()));
      let names: string[];
      try {
        names = (await this.#store.list(this.#session)).map((e) => e.name);
      } catch {
        // A store that cannot answer (Redis gone) means "nothing frozen" for now; look again later.
        this.#loaded = undefined;
        return;
      }
      const batches = names.filter((n) => n.startsWith(BATCH_PREFIX)).sort();
      this.#singles = new Set(
        names.filter((n) => n.startsWith(FROZEN_PREFIX) && n !== LOG_NAME && !n.startsWith(BATCH_PREFIX)),
      );
      // Oldest first, each later record over the earlier ones (a result masked after it was
      // collapsed replays its mask); decisions this process made since win over all of them.
      const found = new Map<string, FrozenEntry>();
      for (const name of batches) {
        const body = await this.#store.get({ dir: this.#session, name }).catch(() => null);
        for (const [key, entry] of recordOf(body?.toString('utf8') ?? '').entries) found.set(key, entry);
      }
      if (names.includes(LOG_NAME)) {
        const body = await this.#store.get({ dir: this.#session, name: LOG_NAME }).catch(() => null);
        if (body) this.#readLog(body, found);
      }
      for (const [key, entry] of found) if (!this.#cache.has(key)) this.#keep(key, entry);
    })();
    return this.#loaded;
  }

  /**
   * Takes the log's records from `body` (its bytes from the offset read so far) into `found`,
   * and moves the offset past them; a last record still being written is left for next time.
   */
  #readLog(body: Buffer, found: Map<string, FrozenEntry>, others?: Set<string>): void {
    const text = body.toString('utf8');
    let consumed = 0;
    const records = text.split('\n');
    for (const [i, record] of records.entries()) {
      const last = i === records.length - 1;
      const { entries, turn, by, torn } = recordOf(record);
      if (last && torn && record !== '') break;
      consumed += Buffer.byteLength(record) + (last ? 0 : 1);
      for (const [key, entry] of entries) {
        found.set(key, entry);
        if (by !== this.#writer) others?.add(key);
        else others?.delete(key);
      }
      this.#turn = laterMark(this.#turn, turn);
    }
    this.#offset += consumed;
  }

  /**
   * For stores several proxies share: takes in what was written to this session's log since
   * the last look, in order, and returns the latest turn mark. One ranged read of the log's new
   * bytes. Another proxy's decision also replaces one of this process's that could not be
   * written yet (made while the store was away): the first written is the one every proxy
   * sends from then on.
   */
  async refresh(): Promise<TurnMark | undefined> {
    if (!this.#loaded) {
      await this.#load();
      return this.#turn;
    }
    await this.#loaded;
    const key = { dir: this.#session, name: LOG_NAME };
    const read = () =>
      this.#store.get(key, { start: this.#offset, end: this.#offset + 64 * 1024 * 1024 }).catch(() => null);
    let body = await read();
    if (!body || body.length === 0) {
      // Nothing new, or a log begun again shorter (the session was evicted, then went on).
      const now = await this.#store.stat(key).catch(() => null);
      if (!now || now.bytes >= this.#offset) return this.#turn;
      this.#offset = 0;
      body = await read();
      if (!body) return this.#turn;
    }
    const found = new Map<string, FrozenEntry>();
    const others = new Set<string>();
    this.#readLog(body, found, others);
    for (const [key, entry] of found) {
      if (others.has(key)) this.#pending.delete(key);
      if (!this.#pending.has(key)) this.#keep(key, entry);
    }
    return this.#turn;
  }

  /** Queues where the conversation stands after a turn, written with the turn's decisions. */
  noteTurn(mark: TurnMark, after?: PromiseLike<unknown>): void {
    this.#turn = laterMark(this.#turn, mark);
    this.#pending.set(TURN_KEY, mark);
    this.#schedule(after);
  }

  #keep(name: string, entry: FrozenEntry): void {
    this.#cache.set(name, entry);
    if (entry.stage) this.#stages.add(entry.stage);
  }

  /** Whether a decision of `stage` is frozen for the session (so a turn may skip looking). */
  async holds(stage: string): Promise<boolean> {
    if (!this.#stages.has(stage)) await this.#load();
    return this.#stages.has(stage);
  }

  /** The decision frozen for this call and original (`originalHash` from {@link contentHash}). */
  async get(callId: string, originalHash: string): Promise<FrozenEntry | undefined> {
    const name = this.#name(callId, originalHash);
    if (!this.#cache.has(name)) await this.#load();
    if (this.#cache.has(name)) return this.#cache.get(name) ?? undefined;
    if (!this.#singles.has(name)) return undefined;
    const body = await this.#store.get({ dir: this.#session, name }).catch(() => null);
    const entry = body ? entryOf(parsed(body.toString('utf8'))) : undefined;
    if (entry === undefined) {
      // A damaged decision is not replayed and not left to fail every turn: it is removed, and
      // the result is decided again like a new one.
      await this.#store.delete({ dir: this.#session, name }).catch(() => {});
      this.#singles.delete(name);
      return undefined;
    }
    this.#keep(name, entry);
    return entry;
  }

  /**
   * Records a decision now (this process replays it at once) and queues it for the store. The
   * queue is written after the turn, or once `after` settles when it is given: the proxy passes
   * the end of the request's answer, so the write never delays an answer.
   */
  async set(
    callId: string,
    originalHash: string,
    entry: FrozenEntry,
    after?: PromiseLike<unknown>,
  ): Promise<void> {
    const name = this.#name(callId, originalHash);
    this.#keep(name, entry);
    this.#pending.set(name, entry);
    this.#schedule(after);
  }

  #schedule(after?: PromiseLike<unknown>): void {
    if (this.#scheduled) return;
    // Registered until its writes are done: pending decisions are only ever left unscheduled
    // after a failed write, and that keeps the registration too.
    this.#register();
    this.#scheduled = true;
    // After the turn (its other decisions are queued by then), all of them go out in one record.
    const write = () =>
      afterReadyIo(() => {
        this.#scheduled = false;
        void this.#enqueueWrite();
      });
    if (after) after.then(write, write);
    else write();
  }

  /** Writes what is pending, after the writes under way. */
  #enqueueWrite(): Promise<void> {
    const mine = this.#writes.then(() => this.#write());
    this.#writes = mine;
    void mine.then(() => {
      if (this.#writes === mine && this.#pending.size === 0 && !this.#scheduled) this.#unregister();
    });
    return mine;
  }

  #register(): void {
    const sessions = unwritten.get(this.#store) ?? new Map<string, Set<FrozenDecisions>>();
    unwritten.set(this.#store, sessions);
    const logs = sessions.get(this.#session) ?? new Set<FrozenDecisions>();
    sessions.set(this.#session, logs.add(this));
  }

  #unregister(): void {
    const sessions = unwritten.get(this.#store);
    const logs = sessions?.get(this.#session);
    logs?.delete(this);
    if (logs?.size === 0) sessions?.delete(this.#session);
  }

  /** How many records failed to be written since the last call (their decisions are retried). */
  takeFailures(): number {
    const failures = this.#failures;
    this.#failures = 0;
    return failures;
  }

  /**
   * Resolves when every decision set so far is in the store (or its write has failed), without
   * waiting for a write held back until an answer ends.
   */
  flush(): Promise<void> {
    return this.#enqueueWrite();
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const entries = new Map(this.#pending);
    this.#pending.clear();
    try {
      await this.#store.append(
        { dir: this.#session, name: LOG_NAME },
        Buffer.from(
          `\n${JSON.stringify({ ...Object.fromEntries(entries), ...(this.#store.shared ? { [WRITER_KEY]: this.#writer } : {}) })}`,
          'utf8',
        ),
      );
    } catch {
      this.#failures++;
      for (const [key, entry] of entries) if (!this.#pending.has(key)) this.#pending.set(key, entry);
    }
  }
}
