import type { Store } from '../../store/index.js';
import { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from '../../tools/index.js';

/** The MCP revisions this server speaks, newest first (it answers a client in the client's own). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** One JSON-RPC answer: a result or an error, for the request with this id. */
export type Answer = Record<string, unknown>;
type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

/**
 * A JSON-RPC error answer.
 *
 * @example
 * rpcError(7, -32601, 'Method not found: resources/list');
 */
export function rpcError(id: unknown, code: number, message: string): Answer {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message } };
}

/**
 * The answer to a `tools/call` of spillway_expand: what spillway's own server and the gateway
 * (which answers the tool itself in front of another server) both send.
 *
 * @example
 * await answerExpandCall(store, 3, { id: 'a1b2c3d4e5f6', grep: 'error' });
 */
export async function answerExpandCall(store: Store, id: unknown, args: unknown): Promise<Answer> {
  return { jsonrpc: '2.0', id, result: await callExpandTool(store, args ?? {}) };
}

/**
 * True for a JSON-RPC request: a message with a method and an id, which gets an answer (a
 * notification has no id; a response has no method).
 *
 * @example
 * isRequest({ jsonrpc: '2.0', id: 1, method: 'ping' }); // true
 */
export function isRequest(message: unknown): boolean {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return false;
  const { id, method } = message as Message;
  return typeof method === 'string' && id !== undefined;
}

/**
 * One JSON-RPC message of spillway's MCP server, answered; undefined for a notification. The
 * server has one tool and no state, so this is all of the protocol: initialize, ping,
 * tools/list, tools/call. Every transport (`spillway mcp` on stdio, `/mcp` over streamable
 * HTTP) answers through it. It needs no MCP SDK (which takes longer to load than node itself
 * starts): a client's `initialize` is answered about as soon as the process runs.
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
    return rpcError(null, -32600, 'Invalid Request: a message is a JSON object');
  const { id, method, params } = message as Message;
  if (typeof method !== 'string')
    return id === undefined ? undefined : rpcError(id, -32600, 'Invalid Request: no method');
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
        return rpcError(id, -32602, `Unknown tool: ${String(p.name)}; this server has ${EXPAND_TOOL}`);
      return answerExpandCall(store, id, p.arguments);
    default:
      return rpcError(id, -32601, `Method not found: ${method}`);
  }
}
