import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiName, PROVIDERS } from '../providers/index.js';
import type { ProxyContext } from './context.js';
import { apiError, forward, isOriginForm, refuseUnread, sendJson, siteProblem } from './http/index.js';
import { countRequest } from './metrics/index.js';
import {
  dashboardDataRoute,
  dashboardPageRoute,
  expandRoute,
  healthRoute,
  isAuthorized,
  isUpgrade,
  mcpRoute,
  metricsRoute,
  refuseUpgrade,
  rewriteRoute,
  statsRoute,
  unauthorized,
} from './routes/index.js';

/**
 * The model API paths whose bodies are rewritten (POST only), from the providers' specs; Gemini's
 * paths name the model and are matched by its spec.
 *
 * @example
 * REWRITTEN['/v1/messages']; // 'anthropic'
 */
export const REWRITTEN: Readonly<Record<string, ApiName>> = PROVIDERS.paths();

// Routes that read state (outputs, session names, stash ids, costs): on a shared host they also
// need the user's own recall token.
const GUARDED = new Set(['/stats', '/metrics', '/expand', '/mcp', '/dashboard.json']);
// The dashboard's page and script: no data in them, so a browser loads them without a header.
const DASHBOARD_FILES = new Set(['/', '/dashboard.js']);

/**
 * Routes one request: WebSocket handshakes refused (426, clients fall back to HTTP); health; the guarded routes (stats, metrics, expand, mcp) behind the
 * token; model API requests rewritten; everything else passed through untouched.
 *
 * @example
 * createServer((req, res) => route(ctx, req, res));
 */
export async function route(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  // Only origin-form targets (`/path?query`): anything else could name another host upstream.
  if (!isOriginForm(req.url ?? '')) return badTarget(ctx, req, res);
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  // Only the user's own clients: before anything is read, forwarded or stashed.
  const more = ctx.routes?.serves(req.method, path);
  const refused = siteProblem(req, ctx.hosts, {
    json: path === '/mcp' || PROVIDERS.call(req.method, path) !== undefined || more?.json === true,
  });
  if (refused) return forbidden(ctx, req, res, path, refused);
  if (more && ctx.routes) return ctx.routes.handle(ctx, req, res, url);
  // Clients probe the root on start (Claude Code sends HEAD /): it answers like /healthz.
  const health = (req.method === 'GET' && path === '/healthz') || (req.method === 'HEAD' && path === '/');
  const page = req.method === 'GET' && DASHBOARD_FILES.has(path);
  const own = GUARDED.has(path);
  // Another local user's connection gets nothing but health and the data-less page, unless it
  // brings this user's token: its model requests would be stashed into this user's store and
  // spend this user's quota.
  const stranger = health || page ? undefined : await ctx.owner?.stranger(req);
  if (stranger && !(ctx.recallToken !== undefined && isAuthorized(ctx.recallToken, req, { bearer: own })))
    return forbidden(ctx, req, res, path, stranger);
  // spillway's own routes log one line each too (the path only: a query may hold a pattern or an id).
  const upgrade = isUpgrade(req);
  const local = upgrade || page || own || health;
  if (local)
    res.once('finish', () =>
      ctx.log({
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      }),
    );
  if (upgrade) return refuseUpgrade(res);
  if (health) return healthRoute(ctx, res);
  if (page) return dashboardPageRoute(res, path === '/' ? 'page' : 'script', ctx.recallTokenFile);
  // With a token set, every other route needs it, model API requests included.
  if (!isAuthorized(ctx.token, req, { bearer: own })) return unauthorized(res, path);
  // State shows other people's outputs, sessions and costs: on a shared host it also needs the
  // user's own token.
  if (own && !isAuthorized(ctx.recallToken, req, { bearer: true }))
    return unauthorized(
      res,
      path,
      `your recall token (${ctx.recallTokenFile ?? "the proxy's recall token"})`,
    );
  if (own) {
    if (path === '/stats') return statsRoute(ctx, res);
    if (path === '/metrics') return metricsRoute(ctx, res);
    if (path === '/expand') return expandRoute(ctx, url, res);
    if (path === '/dashboard.json') return dashboardDataRoute(ctx, res);
    return mcpRoute(ctx, req, res);
  }
  const call = PROVIDERS.call(req.method, path);
  countRequest(ctx.stats, call?.api);
  if (call) return rewriteRoute(ctx, req, res, call, started);
  return forward(ctx, req, res, { api: undefined, body: undefined, started, logFields: {} });
}

/**
 * A 403 answered before the body is read (none of it is parsed, forwarded or stashed), in the
 * shape the client's SDK reads for its API.
 */
function forbidden(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  why: string,
): void {
  const api = PROVIDERS.call(req.method, path)?.api;
  refuseUnread(req, res, 403, apiError(api, 'permission_error', `spillway: ${why}`));
  ctx.log({ method: req.method, path, status: 403, refused: why.slice(0, 120) });
}

function badTarget(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 400, {
    error: {
      type: 'invalid_request_error',
      message: 'spillway takes request targets of the form /path?query only (it is not a forward proxy)',
    },
  });
  ctx.log({ method: req.method, path: '(not a path)', status: 400 });
}
