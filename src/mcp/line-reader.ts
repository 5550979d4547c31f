/** One line of a JSON-lines stream, or what is known of a line past the limit (it is dropped). */
export type BoundedLine =
  /** `partial`: the stream ended before this line's newline (a writer that died mid-message). */
  { line: string; partial?: true } | { oversize: number; head: string };

/** The most bytes one MCP message may take in the gateway (a line of JSON): memory stays bounded. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
// What is kept of a line over the limit: enough to find its id.
const HEAD_BYTES = 4096;

/**
 * The lines of a stream, each at most `maxBytes`: a longer line is not held (its bytes are
 * counted and dropped as they come) and comes out as `{ oversize, head }` with its first 4 KB,
 * so the reader can answer it with an error naming its id. A final line without a newline
 * counts; `\r\n` ends a line as `\n` does. Memory: at most `maxBytes` plus one chunk.
 *
 * @example
 * for await (const item of boundedLines(child.stdout, MAX_MESSAGE_BYTES))
 *   if ('line' in item) await gateway.fromUpstream(item.line);
 */
export async function* boundedLines(
  stream: AsyncIterable<Buffer | string>,
  maxBytes: number,
): AsyncGenerator<BoundedLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping: { bytes: number; head: string } | undefined;
  const take = (piece: Buffer) => {
    if (dropping) {
      dropping.bytes += piece.length;
      return;
    }
    if (size + piece.length > maxBytes) {
      const joined = Buffer.concat([...parts, piece]);
      dropping = { bytes: joined.length, head: joined.subarray(0, HEAD_BYTES).toString('utf8') };
      parts = [];
      size = 0;
      return;
    }
    parts.push(piece);
    size += piece.length;
  };
  const end = (): BoundedLine | undefined => {
    if (dropping) {
      const out = { oversize: dropping.bytes, head: dropping.head };
      dropping = undefined;
      return out;
    }
    let line = Buffer.concat(parts).toString('utf8');
    parts = [];
    size = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    return { line };
  };
  for await (const chunk of stream) {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = data.indexOf(10); nl >= 0; nl = data.indexOf(10, from)) {
      take(data.subarray(from, nl));
      const item = end();
      if (item) yield item;
      from = nl + 1;
    }
    if (from < data.length) take(data.subarray(from));
  }
  if (dropping || size > 0) {
    const item = end();
    if (item) yield 'line' in item ? { ...item, partial: true } : item;
  }
}

/**
 * The id of a JSON-RPC message from its first bytes (a message too long to parse), if it shows:
 * the top-level `"id"` only (a result's own `id` fields are deeper).
 *
 * @example
 * idInHead('{"jsonrpc":"2.0","id":7,"result":{"content":[...'); // 7
 */
export function idInHead(head: string): string | number | undefined {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(head.slice(i));
      if (!m) return undefined;
      if (depth === 1 && m[0] === '"id"') {
        const value = /^\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head.slice(i + 4));
        if (value)
          return (value[1] as string).startsWith('"')
            ? (JSON.parse(value[1] as string) as string)
            : Number(value[1]);
      }
      i += m[0].length - 1;
    }
  }
  return undefined;
}
