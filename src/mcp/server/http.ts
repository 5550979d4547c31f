import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../../store/index.js';
import { answerMessage, isRequest, PROTOCOL_VERSIONS, rpcError } from './server.js';

// The most messages one POST may carry: the work a request can ask for stays bounded.
const MAX_BATCH = 100;

function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...(body === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }),
  });
  res.end(text);
}

/** A JSON-RPC message as the transport accepts it: a request, a notification or a response. */
function isMessage(m: unknown): boolean {
  if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
  const { jsonrpc, method, id } = m as Record<string, unknown>;
  if (jsonrpc !== '2.0') return false;
  if (typeof method === 'string') return true;
  return id !== undefined && ('result' in m || 'error' in m);
}

/**
 * Why this request cannot be served at all (the status and the error), by the rules of MCP's
 * streamable HTTP transport: a POST that accepts JSON and the event stream, sends JSON, names a
 * protocol revision this server speaks, and carries JSON-RPC messages.
 */
function refusal(req: IncomingMessage, body: unknown): [number, string, number] | undefined {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return [406, 'Not Acceptable: Client must accept both application/json and text/event-stream', -32000];
  if (!(req.headers['content-type'] ?? '').includes('application/json'))
    return [415, 'Unsupported Media Type: Content-Type must be application/json', -32000];
  const revision = req.headers['mcp-protocol-version'];
  if (typeof revision === 'string' && !(PROTOCOL_VERSIONS as readonly string[]).includes(revision))
    return [
      400,
      `Bad Request: Unsupported protocol version: ${revision} (supported versions: ${PROTOCOL_VERSIONS.join(', ')})`,
      -32000,
    ];
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH)
    return [400, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`, -32600];
  if (!messages.every(isMessage)) return [400, 'Parse error: Invalid JSON-RPC message', -32700];
  return undefined;
}

/**
 * Handles one MCP request over streamable HTTP, stateless, with JSON answers: the messages of a
 * POST are answered by the same server `spillway mcp` runs on stdio ({@link answerMessage}),
 * 202 when they hold no request; GET and DELETE get 405 (no stream from the server, no session
 * to end). The tool keeps no state, so nothing grows with the number of clients.
 *
 * @example
 * if (url.pathname === '/mcp') return handleMcpRequest(store, req, res, parsedBody);
 */
export async function handleMcpRequest(
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  version = '0.0.0',
): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return send(res, 405, rpcError(null, -32000, 'Method not allowed.'), { allow: 'POST' });
  }
  const refused = refusal(req, body);
  if (refused) return send(res, refused[0], rpcError(null, refused[2], refused[1]));
  const messages = Array.isArray(body) ? body : [body];
  if (!messages.some(isRequest)) return send(res, 202);
  const answers = (await Promise.all(messages.map((m) => answerMessage(store, m, version)))).filter(
    (a) => a !== undefined,
  );
  return send(res, 200, Array.isArray(body) ? answers : answers[0]);
}

/**
 * The proxy's `/mcp` handler over a store: what `spillway proxy` passes to `startProxy`.
 *
 * @example
 * await startProxy({ config, store, mcp: mcpHttpHandler(store) });
 */
export function mcpHttpHandler(
  store: Store,
  version?: string,
): (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void> {
  return (req, res, body) => handleMcpRequest(store, req, res, body, version);
}
