import { SpillwayError } from '../errors.js';
import { JsonlLog } from '../home/index.js';
import type { ContentBlock } from '../text/index.js';
import {
  isToolData,
  type MessageData,
  type SessionEvent,
  type SurfaceNode,
  type SurfaceOp,
} from './events.js';

export interface SessionOptions {
  /**
   * Called before an event lands; return a reason to reject it (the append throws and nothing is
   * written). For policies such as read-only sessions, and for tests.
   */
  validate?: (event: SessionEvent, surface: readonly SurfaceNode[]) => string | undefined;
}

function surfaceOf(events: readonly SessionEvent[]): {
  nodes: SurfaceNode[];
  shadowedBy: Map<number, number>;
} {
  const nodes: SurfaceNode[] = [];
  const shadowedBy = new Map<number, number>();
  for (const event of events) {
    if (event.op.type === 'append') nodes.push({ seq: event.seq, data: event.data });
    else {
      const gone = nodes.splice(event.op.start, event.op.end - event.op.start, {
        seq: event.seq,
        data: event.data,
      });
      for (const node of gone) shadowedBy.set(node.seq, event.seq);
    }
  }
  return { nodes, shadowedBy };
}

/** Records checked to be events `first`, `first + 1`, ... of a session. */
function eventsOf(path: string, records: unknown[], first = 0): SessionEvent[] {
  return records.map((record, k) => {
    const event = record as SessionEvent;
    const seq = first + k;
    if (typeof event !== 'object' || event === null || event.seq !== seq || !event.op || !event.data)
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `${path}: line ${seq + 1} is not event ${seq} of a session (seq, op, data)`,
      );
    return event;
  });
}

/**
 * An append-only log of conversation events with contiguous `seq`. Each event adds a node to
 * the surface (`append`) or shadows surface nodes with itself (`replace {start, end}`, listing
 * what it shadows as `sources`). Persisted as JSONL, each append flushed before it returns; a
 * last line without its newline is left out and reported (only a writer cuts it away), a
 * corrupt line elsewhere is an error.
 *
 * @example
 * const session = await Session.open('/tmp/s.jsonl');
 * await session.append({ role: 'user', content: 'hi' });
 * session.deriveMessages(); // [{ role: 'user', content: 'hi' }]
 */
export class Session {
  readonly path: string | undefined;
  /** Set when loading found a last line without its newline (left out; see `JsonlLog`). */
  readonly torn: { line: number; bytes: number } | undefined;
  readonly #events: SessionEvent[];
  readonly #log: JsonlLog | undefined;
  readonly #readOnly: boolean;
  readonly #options: SessionOptions;
  #surface: SurfaceNode[];

  private constructor(
    events: SessionEvent[],
    where: { path?: string; log?: JsonlLog; torn?: Session['torn']; readOnly?: boolean },
    options: SessionOptions,
  ) {
    this.#events = events;
    this.#log = where.log;
    this.path = where.path;
    this.torn = where.torn;
    this.#readOnly = where.readOnly ?? false;
    this.#options = options;
    this.#surface = surfaceOf(events).nodes;
  }

  /** A session in memory only. */
  static memory(options: SessionOptions = {}): Session {
    return new Session([], {}, options);
  }

  /**
   * Opens (or creates) a session persisted at `path`, for appending. Other processes may append
   * to the same log: each append first takes in theirs, so `seq` stays contiguous.
   */
  static async open(path: string, options: SessionOptions = {}): Promise<Session> {
    const { log, loaded } = await JsonlLog.open(path);
    try {
      return new Session(eventsOf(path, loaded.records), { path, log, torn: loaded.torn }, options);
    } catch (err) {
      await log.close();
      throw err;
    }
  }

  /**
   * Loads a session read-only: nothing is created, truncated or written, even a last line still
   * being written (it is left out and reported in `torn`). Appending to it throws.
   */
  static async load(path: string, options: SessionOptions = {}): Promise<Session> {
    const loaded = await JsonlLog.read(path).catch((err) => {
      if (SpillwayError.isInstance(err) && err.code === 'SPILLWAY_NOT_FOUND')
        throw new SpillwayError('SPILLWAY_NOT_FOUND', `no session log at ${path}`, { cause: err });
      throw err;
    });
    return new Session(eventsOf(path, loaded.records), { path, torn: loaded.torn, readOnly: true }, options);
  }

  get events(): readonly SessionEvent[] {
    return this.#events;
  }

  /** The current nodes, in order. */
  surface(): readonly SurfaceNode[] {
    return this.#surface;
  }

  /** For each shadowed event, the seq of the event that shadows it. */
  shadowedBy(): ReadonlyMap<number, number> {
    return surfaceOf(this.#events).shadowedBy;
  }

  /** Appends a message at the end of the surface. */
  async append(data: MessageData): Promise<SessionEvent> {
    return this.#land({ type: 'append' }, data);
  }

  /** Puts `data` in place of the surface nodes [start, end). */
  async replace(start: number, end: number, data: MessageData): Promise<SessionEvent> {
    return this.#land({ type: 'replace', start, end }, data);
  }

  async #land(op: SurfaceOp, data: MessageData): Promise<SessionEvent> {
    return (await this.#landAll([{ op, data }]))[0] as SessionEvent;
  }

  /**
   * Several events in one append: each is checked against the surface the ones before it left,
   * all go to disk in one write and one flush. A rejected one ends the batch: those before it
   * land, then the rejection is thrown.
   */
  async #landAll(batch: { op: SurfaceOp; data: MessageData }[]): Promise<SessionEvent[]> {
    if (this.#readOnly)
      throw new SpillwayError('SPILLWAY_USAGE', `${this.path} was loaded read-only; open it to append`);
    let rejected: unknown;
    const buildAll = (): SessionEvent[] => {
      const built: SessionEvent[] = [];
      for (const { op, data } of batch) {
        try {
          built.push(this.#apply(this.#build(op, data)));
        } catch (err) {
          rejected = err;
          break;
        }
      }
      return built;
    };
    if (!this.#log) {
      const built = buildAll();
      if (rejected !== undefined) throw rejected;
      return built;
    }
    let before: { events: number; surface: SurfaceNode[] } | undefined;
    let built: SessionEvent[];
    try {
      built = (await this.#log.appendAll((others) => {
        // Events other processes appended since we last looked come first, in their order.
        for (const record of others)
          this.#apply(eventsOf(this.path as string, [record], this.#events.length)[0] as SessionEvent);
        before = { events: this.#events.length, surface: [...this.#surface] };
        return buildAll();
      })) as SessionEvent[];
    } catch (err) {
      // Not on disk: not in memory either.
      if (before) {
        this.#events.length = before.events;
        this.#surface = before.surface;
      }
      throw err;
    }
    if (rejected !== undefined) throw rejected;
    return built;
  }

  /**
   * Replaces several ranges of the surface in one append (one write, one flush): what
   * `pruneSession` does with a pass's replacements.
   *
   * @example
   * await session.replaceAll([{ start: 2, end: 3, data: shorter }, { start: 5, end: 6, data: shorter2 }]);
   */
  async replaceAll(
    replacements: { start: number; end: number; data: MessageData }[],
  ): Promise<SessionEvent[]> {
    return this.#landAll(
      replacements.map(({ start, end, data }) => ({ op: { type: 'replace', start, end }, data })),
    );
  }

  /** The next event for `op`, checked against the surface as it is now. */
  #build(op: SurfaceOp, data: MessageData): SessionEvent {
    if (
      op.type === 'replace' &&
      (!Number.isSafeInteger(op.start) ||
        !Number.isSafeInteger(op.end) ||
        op.start < 0 ||
        op.end <= op.start ||
        op.end > this.#surface.length)
    ) {
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `replace [${op.start}, ${op.end}) is not a range of the surface (0 to ${this.#surface.length})`,
      );
    }
    const event: SessionEvent = {
      seq: this.#events.length,
      op,
      ...(op.type === 'replace' ? { sources: this.#surface.slice(op.start, op.end).map((n) => n.seq) } : {}),
      data,
    };
    const reason = this.#options.validate?.(event, this.#surface);
    if (reason)
      throw new SpillwayError('SPILLWAY_BAD_INPUT', `the session rejected event ${event.seq}: ${reason}`);
    return event;
  }

  #apply(event: SessionEvent): SessionEvent {
    this.#events.push(event);
    if (event.op.type === 'append') this.#surface.push({ seq: event.seq, data: event.data });
    else
      this.#surface.splice(event.op.start, event.op.end - event.op.start, {
        seq: event.seq,
        data: event.data,
      });
    return event;
  }

  /**
   * The surface as Anthropic-style messages: consecutive tool results become one user message of
   * `tool_result` blocks.
   *
   * @example
   * session.deriveMessages(); // [{ role: 'user', content: 'run it' }, { role: 'assistant', content: [...] }, { role: 'user', content: [{ type: 'tool_result', ... }] }]
   */
  deriveMessages(): { role: string; content: unknown }[] {
    const out: { role: string; content: unknown }[] = [];
    for (const { data } of this.#surface) {
      if (isToolData(data)) {
        const block = {
          type: 'tool_result',
          tool_use_id: data.toolCallId,
          content: data.content,
          ...(data.isError ? { is_error: true } : {}),
        };
        const last = out.at(-1);
        if (
          last &&
          last.role === 'user' &&
          Array.isArray(last.content) &&
          (last.content as { type?: string }[]).every((b) => b.type === 'tool_result')
        ) {
          (last.content as unknown[]).push(block);
        } else out.push({ role: 'user', content: [block] });
      } else out.push({ role: data.role, content: data.content });
    }
    return out;
  }

  /**
   * The surface as OpenAI Chat messages: tool results become `role: "tool"` messages and
   * assistant `tool_use` blocks become `tool_calls`.
   */
  deriveOpenAIMessages(): Record<string, unknown>[] {
    return this.#surface.map(({ data }) => {
      if (isToolData(data)) {
        return {
          role: 'tool',
          tool_call_id: data.toolCallId,
          content: typeof data.content === 'string' ? data.content : JSON.stringify(data.content),
        };
      }
      if (data.role === 'assistant' && Array.isArray(data.content)) {
        const blocks = data.content as ContentBlock[];
        const text = blocks
          .filter((b) => b.type === 'text')
          .map((b) => (b as { text: string }).text)
          .join('');
        const calls = blocks
          .filter((b) => b.type === 'tool_use')
          .map((b) => ({
            id: b.id,
            type: 'function',
            function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
          }));
        return { role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) };
      }
      return { role: data.role, content: data.content };
    });
  }

  async close(): Promise<void> {
    await this.#log?.close();
  }
}
