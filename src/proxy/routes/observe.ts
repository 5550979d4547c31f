import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProxyContext } from '../context.js';
import { sendJson, sendText } from '../http.js';
import { renderMetrics } from '../stats.js';

/**
 * `GET /healthz`: the proxy is up (never guarded: load balancers ask it).
 *
 * @example
 * if (path === '/healthz') return healthRoute(ctx, res);
 */
export function healthRoute(ctx: ProxyContext, res: ServerResponse): void {
  sendJson(res, 200, { ok: true, version: ctx.version });
}

/**
 * `/stats`: the counters as JSON, with the number of conversations remembered.
 *
 * @example
 * if (path === '/stats') return statsRoute(ctx, res);
 */
export function statsRoute(ctx: ProxyContext, res: ServerResponse): void {
  sendJson(res, 200, { ...ctx.stats, sessions: ctx.sessions.size });
}

/**
 * `/metrics`: the counters in Prometheus text.
 *
 * @example
 * if (path === '/metrics') return metricsRoute(ctx, res);
 */
export function metricsRoute(ctx: ProxyContext, res: ServerResponse): void {
  sendText(res, 200, 'text/plain; version=0.0.4', renderMetrics(ctx.stats));
}

/**
 * True when the request may use the guarded routes: no token is set, or it carries the token.
 *
 * @example
 * if (!isAuthorized(ctx, req)) return unauthorized(res, path);
 */
export function isAuthorized(ctx: ProxyContext, req: IncomingMessage): boolean {
  return !ctx.token || req.headers.authorization === `Bearer ${ctx.token}`;
}

/**
 * The 401 of a guarded route.
 *
 * @example
 * unauthorized(res, '/stats');
 */
export function unauthorized(res: ServerResponse, path: string): void {
  sendJson(res, 401, {
    error: {
      type: 'unauthorized',
      message: `${path} needs "Authorization: Bearer <token>" (the proxy's --token)`,
    },
  });
}
