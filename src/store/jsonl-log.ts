import { constants } from 'node:fs';
import { open, readFile, stat, truncate } from 'node:fs/promises';
import { SpillwayError } from '../errors.js';

/** What loading a log found. */
export interface LoadedLog {
  /** The records of every complete line, in order. */
  records: unknown[];
  /** A last line cut off by a crash mid-write: dropped (and cut from the file) and reported. */
  torn?: { line: number; bytes: number };
}

/**
 * An append-only JSONL file: one JSON record a line, each append flushed to disk before it
 * returns. On load a torn last line (no newline: a crash mid-write) is dropped, reported and
 * truncated away, and nothing before it is lost; a line that is not JSON anywhere else is an
 * error naming it, never a silent skip. Files are created 0600.
 *
 * @example
 * const log = await JsonlLog.open('/tmp/session.jsonl');
 * await log.append({ seq: 0, kind: 'message' });
 */
export class JsonlLog {
  readonly path: string;
  #handle: Awaited<ReturnType<typeof open>> | undefined;

  private constructor(path: string) {
    this.path = path;
  }

  /** Loads the records of an existing log (none when it does not exist) and opens it for appending. */
  static async open(path: string): Promise<{ log: JsonlLog; loaded: LoadedLog }> {
    const loaded = await JsonlLog.read(path);
    if (loaded.torn) {
      const size = (await stat(path)).size;
      await truncate(path, size - loaded.torn.bytes);
    }
    const log = new JsonlLog(path);
    log.#handle = await open(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    return { log, loaded };
  }

  /** Reads the records without opening the log for writing. */
  static async read(path: string): Promise<LoadedLog> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [] };
      throw new SpillwayError('SPILLWAY_IO', `cannot read ${path}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const lines = text.split('\n');
    const records: unknown[] = [];
    // After the final newline split() leaves '' (a complete log) or the torn tail.
    const tail = lines.pop() as string;
    lines.forEach((line, i) => {
      try {
        records.push(JSON.parse(line));
      } catch {
        throw new SpillwayError(
          'SPILLWAY_BAD_INPUT',
          `${path}: line ${i + 1} is corrupt (not JSON): ${line.slice(0, 80)}; the log cannot be loaded past it`,
        );
      }
    });
    if (tail === '') return { records };
    // A tail without a newline is a write that did not finish, even if it happens to parse.
    return { records, torn: { line: lines.length + 1, bytes: Buffer.byteLength(tail) } };
  }

  /** Appends one record and flushes it to disk before returning. */
  async append(record: unknown): Promise<void> {
    if (!this.#handle) throw new SpillwayError('SPILLWAY_IO', `${this.path} is closed`);
    await this.#handle.appendFile(`${JSON.stringify(record)}\n`);
    await this.#handle.datasync();
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
  }
}
