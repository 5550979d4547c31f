import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type InputUsage, inputUsageOf, PROVIDERS } from '../../providers/index.js';

/**
 * Reads the provider's count of a request's input tokens from its answer as the answer passes
 * through, without holding it back: Anthropic's `message_start` (or the message JSON), OpenAI
 * Chat's `usage` (its last chunk when streamed), Responses' `response.completed`.
 */

/** A partial SSE line longer than this is not a usage event: it is skipped, not kept. */
const MAX_LINE = 1 << 20;
/** A JSON answer longer than this is not kept for its usage. */
const MAX_JSON = 8 << 20;
const NEWLINE = 0x0a;
/** Every usage event holds its API's mark (`input_tokens"`, `prompt_tokens"`, `promptTokenCount"`). */
const MARK_TEXTS = [...new Set(PROVIDERS.specs.map((s) => s.usageMark))];
const MARKS = MARK_TEXTS.map((m) => Buffer.from(m));

/**
 * Watches an answer's bytes for its usage. `push` every chunk as it is forwarded; `result` at the
 * end. Memory is bounded whatever the answer: one SSE line, or one JSON body up to 8 MiB.
 *
 * @example
 * const tap = new UsageTap(res.headers['content-type']);
 * for await (const chunk of body) { tap.push(chunk); client.write(chunk); }
 * tap.result(); // { input: 34, cacheRead: 1200, cacheWrite: 0 }
 */
export class UsageTap {
  readonly #sse: boolean;
  /** The line under way (its bytes since the last newline), while it is short enough to matter. */
  #line: Buffer[] = [];
  #lineBytes = 0;
  #found: InputUsage | undefined;
  #json: Buffer[] = [];
  #jsonBytes = 0;

  constructor(contentType: string | string[] | undefined) {
    this.#sse = String(contentType ?? '').includes('text/event-stream');
  }

  push(chunk: Buffer): void {
    if (!this.#sse) {
      this.#jsonBytes += chunk.length;
      if (this.#jsonBytes <= MAX_JSON) this.#json.push(chunk);
      return;
    }
    let from = 0;
    const first = chunk.indexOf(NEWLINE);
    if (this.#lineBytes > 0) {
      // The line that began in an earlier chunk.
      if (first < 0) {
        this.#keep(chunk);
        return;
      }
      this.#keep(chunk.subarray(0, first));
      this.#endLine();
      from = first + 1;
    }
    // Whole lines in this chunk: only those that name a token count are parsed, found with a
    // native search, so an ordinary event costs two searches and nothing else.
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= from) {
      for (const mark of MARKS) {
        for (let at = chunk.indexOf(mark, from); at >= 0 && at < last; at = chunk.indexOf(mark, at)) {
          const start = Math.max(from, chunk.lastIndexOf(NEWLINE, at) + 1);
          const end = chunk.indexOf(NEWLINE, at);
          this.#examine(chunk.toString('utf8', start, end));
          at = end;
        }
      }
      from = last + 1;
    }
    if (from < chunk.length) this.#keep(chunk.subarray(from));
  }

  /** The input usage the answer reported (the last report wins), or undefined. */
  result(): InputUsage | undefined {
    if (this.#sse) {
      this.#endLine();
      return this.#found;
    }
    if (this.#jsonBytes > MAX_JSON || this.#jsonBytes === 0) return undefined;
    try {
      return inputUsageOf(JSON.parse(Buffer.concat(this.#json).toString('utf8')));
    } catch {
      return undefined;
    }
  }

  #keep(part: Buffer): void {
    if (part.length === 0) return;
    this.#lineBytes += part.length;
    if (this.#lineBytes <= MAX_LINE) this.#line.push(part);
  }

  #endLine(): void {
    const line = this.#lineBytes <= MAX_LINE ? Buffer.concat(this.#line).toString('utf8') : '';
    this.#line = [];
    this.#lineBytes = 0;
    this.#examine(line);
  }

  #examine(line: string): void {
    if (!line.startsWith('data:') || !MARK_TEXTS.some((m) => line.includes(m))) return;
    try {
      const found = inputUsageOf(JSON.parse(line.slice(5)));
      if (found !== undefined) this.#found = found;
    } catch {
      // Not JSON: not a usage event.
    }
  }
}

/** An answer's usage, read through its content encoding. */
export interface AnswerTap {
  push(chunk: Buffer): void;
  /** The input usage the answer reported, once its last bytes are decoded. */
  result(): Promise<InputUsage | undefined>;
}

/** A compressed answer is decoded for its usage only up to this many bytes (a bound on a bomb). */
const MAX_DECODED = 64 << 20;

function decoderFor(encoding: string) {
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/**
 * A {@link UsageTap} behind the answer's `content-encoding`: providers compress JSON answers
 * (and some streams) for clients that accept it, and the usage is inside. Decoding runs on the
 * thread pool beside the forwarding, which never waits for it; an encoding it cannot decode
 * (zstd) reads as no usage.
 *
 * @example
 * const tap = tapAnswer(upstream.headers);
 * tap.push(chunk); // as each chunk is forwarded
 * await tap.result(); // { input: 34, cacheRead: 1200, cacheWrite: 0 }
 */
export function tapAnswer(headers: Record<string, string | string[] | undefined>): AnswerTap {
  const tap = new UsageTap(headers['content-type']);
  const encoding = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === '' || encoding === 'identity')
    return { push: (chunk) => tap.push(chunk), result: async () => tap.result() };
  const decoder = decoderFor(encoding);
  if (!decoder) return { push: () => {}, result: async () => undefined };
  let decoded = 0;
  let failed = false;
  decoder.on('data', (chunk: Buffer) => {
    decoded += chunk.length;
    if (decoded > MAX_DECODED) {
      failed = true;
      decoder.destroy();
    } else tap.push(chunk);
  });
  const done = new Promise<void>((resolve) => {
    decoder.once('end', resolve);
    decoder.once('close', resolve);
    decoder.once('error', () => {
      failed = true;
      resolve();
    });
  });
  return {
    push: (chunk) => {
      if (!failed && !decoder.destroyed) decoder.write(chunk);
    },
    result: async () => {
      if (!decoder.destroyed) decoder.end();
      await done;
      return failed ? undefined : tap.result();
    },
  };
}
