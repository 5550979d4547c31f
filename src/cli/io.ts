import { readFile } from 'node:fs/promises';
import { SpillwayError } from '../errors.js';
import { decodeUtf8 } from '../text/index.js';

/** Where a command reads and writes; tests pass their own. */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Whether stdin is a terminal (then a command with no FILE would wait forever, so it refuses). */
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
}

async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * The bytes of FILE, or of standard input when FILE is absent or `-`.
 *
 * @example
 * const bytes = await readInputBytes(io, positionals[0]);
 */
export async function readInputBytes(io: CliIo, file: string | undefined): Promise<Buffer> {
  if (file === undefined || file === '-') {
    if (io.stdinIsTTY) {
      throw new SpillwayError(
        'SPILLWAY_USAGE',
        'no FILE given and standard input is a terminal; pass a FILE or pipe input in',
      );
    }
    return readStream(io.stdin);
  }
  try {
    return await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(code ?? err);
    throw new SpillwayError('SPILLWAY_BAD_INPUT', `cannot read "${file}": ${why}`, { cause: err });
  }
}

/** FILE or standard input as UTF-8 text. */
export async function readInputText(io: CliIo, file: string | undefined): Promise<string> {
  return decodeUtf8(await readInputBytes(io, file));
}

/** Writes and waits until the stream has taken it, so large outputs are not cut at exit. */
export function write(stream: NodeJS.WritableStream, text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * A JSON config file, parsed; errors name the file and say what is wrong (it cannot be read,
 * or it is not JSON).
 *
 * @example
 * const config = await readConfigFile('gateway.json');
 */
export async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `cannot read the config file "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `the config file "${file}" is not JSON: ${(err as Error).message}`,
    );
  }
}
