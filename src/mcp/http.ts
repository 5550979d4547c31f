import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Store } from '../store/store.js';
import { createExpandServer } from './expand-server.js';

/**
 * Handles one MCP request over streamable HTTP, stateless: a server and a transport per request
 * (the tool keeps no state, so nothing is lost, and nothing grows with the number of clients).
 *
 * @example
 * if (url.pathname === '/mcp') return handleMcpRequest(store, req, res, parsedBody);
 */
export async function handleMcpRequest(
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  version?: string,
): Promise<void> {
  const server = createExpandServer(store, version);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * The proxy's `/mcp` handler over a store: what `spillway proxy` passes to `startProxy`.
 *
 * @example
 * await startProxy({ pipeline, store, mcp: mcpHttpHandler(store) });
 */
export function mcpHttpHandler(
  store: Store,
  version?: string,
): (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void> {
  return (req, res, body) => handleMcpRequest(store, req, res, body, version);
}
