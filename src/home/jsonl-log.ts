import { constants, createReadStream } from 'node:fs';
import { open, stat, truncate } from 'node:fs/promises';
import { SpillwayError } from '../errors.js';
import { withLock } from './file-lock.js';

/** What loading a log found. */
export interface LoadedLog {
  /** The records of every complete line, in order. */
  records: unknown[];
  /**
   * A last line without its newline: a write still under way, or cut off by a crash. Never
   * loaded; a reader leaves it alone, the writer cuts it away (under the log's lock).
   */
  torn?: { line: number; bytes: number };
  /** Bytes up to the end of the last complete line. */
  bytes: number;
}

const NEWLINE = 10;

/**
 * The complete lines of `path` from byte `from`, read as a stream (a log of any size loads
 * without ever being one string), each parsed as JSON; a corrupt line is an error naming it.
 */
async function readLines(path: string, from: number, firstLine: number): Promise<LoadedLog> {
  const records: unknown[] = [];
  let carry: Buffer = Buffer.alloc(0);
  let bytes = from;
  let line = firstLine;
  try {
    for await (const chunk of createReadStream(path, { start: from })) {
      const data: Buffer = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
        const text = data.toString('utf8', start, nl);
        try {
          records.push(JSON.parse(text));
        } catch {
          throw new SpillwayError(
            'SPILLWAY_BAD_INPUT',
            `${path}: line ${line} is corrupt (not JSON): ${text.slice(0, 80)}; the log cannot be loaded past it`,
          );
        }
        bytes += nl + 1 - start;
        line++;
        start = nl + 1;
      }
      carry = data.subarray(start);
    }
  } catch (err) {
    if (SpillwayError.isInstance(err)) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SpillwayError('SPILLWAY_NOT_FOUND', `no log at ${path}`, { cause: err });
    throw new SpillwayError('SPILLWAY_IO', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  return carry.length ? { records, bytes, torn: { line, bytes: carry.length } } : { records, bytes };
}

/**
 * An append-only JSONL file: one JSON record a line, each append flushed to disk before it
 * returns. Reading never writes: a last line without its newline (a write under way, or one a
 * crash cut off) is left out and reported. Writers, in any number of processes, append under
 * the log's lock: each first takes in what the others appended, and the one that finds a torn
 * tail cuts it away. A line that is not JSON is an error naming it, never a silent skip. Files
 * are created 0600.
 *
 * @example
 * const { log } = await JsonlLog.open('/tmp/session.jsonl');
 * await log.append(() => ({ seq: 0, kind: 'message' }));
 */
export class JsonlLog {
  readonly path: string;
  #handle: Awaited<ReturnType<typeof open>> | undefined;
  /** Bytes of the file this writer has taken in, and the next line's number. */
  #bytes = 0;
  #lines = 1;

  private constructor(path: string) {
    this.path = path;
  }

  get #lock(): string {
    return `${this.path}.lock`;
  }

  /**
   * Opens the log for appending (creating it when missing) and loads its records; a torn tail
   * is cut away here, under the lock, and reported. The lock is held only to catch up.
   */
  static async open(path: string): Promise<{ log: JsonlLog; loaded: LoadedLog }> {
    const log = new JsonlLog(path);
    // The bulk is read outside the lock (a log of gigabytes takes a while, and other writers
    // must not wait on it); under the lock only what was appended since is read.
    let first: LoadedLog;
    try {
      first = await readLines(path, 0, 1);
    } catch (err) {
      if (!(SpillwayError.isInstance(err) && err.code === 'SPILLWAY_NOT_FOUND')) throw err;
      first = { records: [], bytes: 0 };
    }
    const loaded = await withLock(log.#lock, async () => {
      log.#handle = await open(
        path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
        0o600,
      );
      const rest = await readLines(path, first.bytes, first.records.length + 1);
      if (rest.torn) await truncate(path, rest.bytes);
      const read: LoadedLog = {
        records: rest.records.length ? [...first.records, ...rest.records] : first.records,
        bytes: rest.bytes,
        ...(rest.torn ? { torn: rest.torn } : {}),
      };
      log.#bytes = read.bytes;
      log.#lines = read.records.length + 1;
      return read;
    });
    return { log, loaded };
  }

  /** Reads the records of an existing log without writing anything; a missing one is an error. */
  static async read(path: string): Promise<LoadedLog> {
    return readLines(path, 0, 1);
  }

  /**
   * Appends the record `make` builds from what other writers appended since this one last
   * looked (usually nothing), and flushes it to disk before returning.
   */
  async append(make: (appendedByOthers: unknown[]) => unknown): Promise<unknown> {
    return (await this.appendAll((others) => [make(others)]))[0];
  }

  /**
   * Appends every record `make` builds, under one lock, in one write and one flush to disk (a
   * batch of many events costs about what one does).
   */
  async appendAll(make: (appendedByOthers: unknown[]) => unknown[]): Promise<unknown[]> {
    const handle = this.#handle;
    if (!handle) throw new SpillwayError('SPILLWAY_IO', `${this.path} is closed`);
    return withLock(this.#lock, async () => {
      let others: unknown[] = [];
      if ((await stat(this.path)).size !== this.#bytes) {
        const read = await readLines(this.path, this.#bytes, this.#lines);
        if (read.torn) await truncate(this.path, read.bytes);
        others = read.records;
        this.#bytes = read.bytes;
        this.#lines += others.length;
      }
      const records = make(others);
      if (records.length === 0) return records;
      const lines = Buffer.from(records.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
      await handle.appendFile(lines);
      await handle.datasync();
      this.#bytes += lines.length;
      this.#lines += records.length;
      return records;
    });
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
  }
}
