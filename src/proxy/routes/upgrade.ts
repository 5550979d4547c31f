import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * True for a request that asks to switch protocols (`Upgrade: websocket`).
 *
 * @example
 * if (isUpgrade(req)) return refuseUpgrade(res);
 */
export function isUpgrade(req: IncomingMessage): boolean {
  return typeof req.headers.upgrade === 'string' && req.headers.upgrade !== '';
}

/**
 * `426 Upgrade Required` for a WebSocket handshake. spillway rewrites requests over HTTP only;
 * Codex tries `GET /v1/responses` as a WebSocket first and, on a 426, goes straight to HTTP (on a
 * 404 it retries seven times first), so this answer costs it one round trip. The connection is
 * closed: the client was ready to speak another protocol on it.
 *
 * @example
 * if (isUpgrade(req)) return refuseUpgrade(res);
 */
export function refuseUpgrade(res: ServerResponse): void {
  const text = JSON.stringify({
    error: {
      type: 'upgrade_required',
      message: 'spillway proxies model APIs over HTTP only; send this request as a plain HTTP request',
    },
  });
  res.writeHead(426, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
}
