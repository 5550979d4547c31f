import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyContext } from '../context.js';
import { BodyTooLarge, readBody, refuseTooLarge, sendJson } from '../http/index.js';

/**
 * `/mcp`: MCP over streamable HTTP, served by the handler the proxy was given (the CLI wires
 * spillway's own MCP server in); a proxy started without one answers 404.
 *
 * @example
 * if (path === '/mcp') return mcpRoute(ctx, req, res);
 */
export async function mcpRoute(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!ctx.mcp) {
    req.resume();
    return sendJson(res, 404, {
      error: {
        type: 'not_found',
        message: 'this proxy serves no MCP; start it with an mcp handler (spillway proxy does)',
      },
    });
  }
  let body: unknown;
  if (req.method === 'POST') {
    try {
      body = JSON.parse((await readBody(req, ctx.maxBodyBytes)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLarge)
        return refuseTooLarge(req, res, {
          jsonrpc: '2.0',
          error: {
            code: -32600,
            message: `the request is over spillway's limit of ${ctx.maxBodyBytes} bytes`,
          },
          id: null,
        });
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: the body is not JSON' },
        id: null,
      });
    }
    // JSON-RPC: an empty batch is an Invalid Request, answered as one (not accepted as nothing).
    if (Array.isArray(body) && body.length === 0)
      return sendJson(res, 400, {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: an empty batch' },
        id: null,
      });
  }
  return ctx.mcp(req, res, body);
}
