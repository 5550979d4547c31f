import { createInterface } from 'node:readline';
import type { Store } from '../store/store.js';
import { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from './expand-tool.js';

/** The MCP revisions this server speaks, newest first (it answers a client in the client's own). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
type Answer = Record<string, unknown>;

const error = (id: unknown, code: number, message: string): Answer => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
});

/**
 * One JSON-RPC message of the MCP stdio protocol, answered; undefined for a notification. The
 * server has one tool and no state, so this is all of it: initialize, ping, tools/list,
 * tools/call. It needs no MCP SDK (which takes longer to load than node itself starts): a
 * client's `initialize` is answered about as soon as the process runs.
 *
 * @example
 * await answerMessage(store, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, '1.0.0');
 */
export async function answerMessage(
  store: Store,
  message: unknown,
  version: string,
): Promise<Answer | undefined> {
  if (!message || typeof message !== 'object' || Array.isArray(message))
    return error(null, -32600, 'Invalid Request: a message is a JSON object');
  const { id, method, params } = message as Message;
  if (typeof method !== 'string')
    return id === undefined ? undefined : error(id, -32600, 'Invalid Request: no method');
  if (id === undefined) return undefined; // notifications (initialized, cancelled) need no answer
  const result = (value: unknown): Answer => ({ jsonrpc: '2.0', id, result: value });
  const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  switch (method) {
    case 'initialize': {
      const asked = p.protocolVersion;
      const protocolVersion = PROTOCOL_VERSIONS.find((v) => v === asked) ?? PROTOCOL_VERSIONS[0];
      return result({
        protocolVersion,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'spillway', version },
      });
    }
    case 'ping':
      return result({});
    case 'tools/list':
      return result({ tools: [EXPAND_TOOL_DEFINITION] });
    case 'tools/call':
      if (p.name !== EXPAND_TOOL)
        return error(id, -32602, `Unknown tool: ${String(p.name)}; this server has ${EXPAND_TOOL}`);
      return result(await callExpandTool(store, p.arguments ?? {}));
    default:
      return error(id, -32601, `Method not found: ${method}`);
  }
}

/**
 * Serves `spillway_expand` over standard input and output (one JSON-RPC message a line) until
 * the client closes it.
 *
 * @example
 * await serveStdio(new FileStore());
 */
export async function serveStdio(store: Store, version = '0.0.0'): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const pending = new Set<Promise<void>>();
  const send = (answer: Answer | undefined) => {
    if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
  };
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      send(error(null, -32700, 'Parse error: a line that is not JSON'));
      continue;
    }
    // Calls run side by side (a long grep does not hold up a ping), each answered when done.
    const batch = Array.isArray(message) ? message : [message];
    if (batch.length === 0) send(error(null, -32600, 'Invalid Request: an empty batch'));
    for (const m of batch) {
      const work: Promise<void> = answerMessage(store, m, version).then(send);
      pending.add(work);
      void work.finally(() => pending.delete(work));
    }
  }
  await Promise.all(pending);
}
