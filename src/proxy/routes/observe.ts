import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readAtSource } from '../../store/index.js';
import type { ProxyContext } from '../context.js';
import { sendJson, sendText } from '../http/index.js';
import { renderMetrics } from '../metrics/index.js';

/**
 * `GET /healthz`: the proxy is up (never guarded: load balancers ask it).
 *
 * @example
 * if (path === '/healthz') return healthRoute(ctx, res);
 */
export function healthRoute(ctx: ProxyContext, res: ServerResponse): void {
  sendJson(res, 200, { ok: true, version: ctx.version });
}

/** How far back `atSource` looks: today and yesterday. */
export const AT_SOURCE_DAYS = 2;

/**
 * `/stats`: the counters as JSON, with the number of conversations remembered and what capture
 * at the source (the client hooks, `spillway run`) did in the last two days, read from the store
 * they share with the proxy.
 *
 * @example
 * if (path === '/stats') return statsRoute(ctx, res);
 */
export async function statsRoute(ctx: ProxyContext, res: ServerResponse): Promise<void> {
  // Recent decisions without what the model saw: outputs are for /dashboard.json, behind the
  // recall token like /expand.
  const savings = {
    ...ctx.stats.savings,
    recent: ctx.stats.savings.recent.map(({ view: _view, ...d }) => d),
  };
  const atSource = await readAtSource(ctx.store, { days: AT_SOURCE_DAYS, now: new Date() });
  sendJson(res, 200, { ...ctx.stats, savings, atSource, sessions: ctx.sessions.size });
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

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * True when the request may pass: no token is asked for, or it carries the token, as
 * `x-spillway-token: T` (any route; model API clients keep their own Authorization header) or
 * `Authorization: Bearer T` (spillway's own routes), or a header `headers` names. Compared in
 * constant time.
 *
 * @example
 * if (!isAuthorized(ctx.token, req, { bearer: true })) return unauthorized(res, path);
 */
export function isAuthorized(
  token: string | undefined,
  req: IncomingMessage,
  options: { bearer?: boolean; headers?: readonly string[] } = {},
): boolean {
  if (!token) return true;
  const expected = digest(token);
  // Authorization belongs to the provider on model routes (it is forwarded upstream): there
  // spillway's token is only taken from x-spillway-token, which never leaves the proxy.
  const given = [
    req.headers['x-spillway-token'],
    options.bearer ? req.headers.authorization?.replace(/^Bearer /, '') : undefined,
    // The header other tools' callers send the same token in (x-headroom-proxy-token).
    ...(options.headers ?? []).map((name) => req.headers[name]),
  ];
  return given.some((value) => typeof value === 'string' && timingSafeEqual(digest(value), expected));
}

/**
 * The 401 of a guarded route.
 *
 * @example
 * unauthorized(res, '/stats');
 * unauthorized(res, '/expand', 'your recall token (~/.spillway/token)');
 */
export function unauthorized(res: ServerResponse, path: string, which = "the proxy's --token"): void {
  sendJson(res, 401, {
    error: {
      type: 'unauthorized',
      message: `${path} needs ${which}: send "x-spillway-token: <token>" (or "Authorization: Bearer <token>" on spillway's own routes)`,
    },
  });
}
