import type { Store } from '../../store/index.js';
import { boundedLines, idInHead, MAX_MESSAGE_BYTES } from '../line-reader.js';
import { type Answer, answerMessage, rpcError } from './server.js';

/**
 * Serves spillway's MCP server over standard input and output (one JSON-RPC message a line)
 * until the client closes it. A line over `MAX_MESSAGE_BYTES` is not held: its request gets an
 * error naming the limit.
 *
 * @example
 * await serveStdio(new FileStore());
 */
export async function serveStdio(
  store: Store,
  version = '0.0.0',
  io: { input: AsyncIterable<Buffer | string>; output: { write(s: string): unknown } } = {
    input: process.stdin,
    output: process.stdout,
  },
): Promise<void> {
  const pending = new Set<Promise<void>>();
  const send = (answer: Answer | undefined) => {
    if (answer) io.output.write(`${JSON.stringify(answer)}\n`);
  };
  for await (const item of boundedLines(io.input, MAX_MESSAGE_BYTES)) {
    if (!('line' in item)) {
      const id = idInHead(item.head);
      if (id !== undefined)
        send(
          rpcError(
            id,
            -32600,
            `Invalid Request: a message of ${item.oversize} bytes, over ${MAX_MESSAGE_BYTES}`,
          ),
        );
      continue;
    }
    if (item.line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(item.line);
    } catch {
      send(rpcError(null, -32700, 'Parse error: a line that is not JSON'));
      continue;
    }
    // Calls run side by side (a long grep does not hold up a ping), each answered when done.
    const batch = Array.isArray(message) ? message : [message];
    if (batch.length === 0) send(rpcError(null, -32600, 'Invalid Request: an empty batch'));
    for (const m of batch) {
      const work: Promise<void> = answerMessage(store, m, version).then(send);
      pending.add(work);
      void work.finally(() => pending.delete(work));
    }
  }
  await Promise.all(pending);
}
