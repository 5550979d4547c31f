import type { IncomingMessage } from 'node:http';
import {
  BodyTooLarge,
  type MoreRoutes,
  type ProxyContext,
  readBody,
  refuseTooLarge,
  refuseUnread,
  sendJson,
} from '../proxy/index.js';
import { gatewayRefusal } from './auth.js';
import { compressRoute, type GatewayAnswer } from './compress-route.js';
import { admit, DEFAULT_DEADLINE_MS, type WorkHold } from './deadline.js';
import { portkeyHookRoute } from './portkey-hook.js';
import { retrieveRoute } from './retrieve.js';

/** The routes, by method and path: the ones with a body take JSON. */
const POSTED = new Set(['/v1/compress', '/v1/retrieve', '/portkey/hook']);
const RETRIEVE_BY_PATH = /^\/v1\/retrieve\/([^/]*)$/;

export interface GatewayRoutesOptions {
  /** The most a compression may take before the input goes on unchanged (default 2,500 ms). */
  deadlineMs?: number;
}

/** The bytes a request says its body holds, at most the proxy's limit (the limit when it does not say). */
function declaredBytes(req: IncomingMessage, limit: number): number {
  const declared = Number(req.headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
}

async function answer(
  ctx: ProxyContext,
  req: IncomingMessage,
  path: string,
  deadlineMs: number,
): Promise<GatewayAnswer | undefined> {
  if (req.method === 'GET') {
    const hash = RETRIEVE_BY_PATH.exec(path)?.[1] as string;
    return retrieveRoute(ctx, hash);
  }
  const started = performance.now();
  // Large bodies wait for room in the proxy's admission, within the deadline; one that gets
  // none in time goes back unchanged.
  const release = await admit(ctx.admission, declaredBytes(req, ctx.maxBodyBytes), deadlineMs);
  const hold: WorkHold = { settled: Promise.resolve() };
  try {
    let raw: Buffer;
    try {
      raw = await readBody(req, ctx.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLarge) return undefined;
      throw err;
    }
    const left = release ? Math.round(deadlineMs - (performance.now() - started)) : 0;
    if (path === '/v1/compress') return await compressRoute(ctx, req, raw, deadlineMs, left, hold);
    if (path === '/portkey/hook') return await portkeyHookRoute(ctx, raw, deadlineMs, left, hold);
    return retrieveByBody(ctx, raw);
  } finally {
    // The room goes back when the work ends, not when the answer does (it may go on past the deadline).
    if (release) void hold.settled.then(release);
  }
}

/** `POST /v1/retrieve {hash}`. */
function retrieveByBody(ctx: ProxyContext, raw: Buffer): Promise<GatewayAnswer> {
  let hash: unknown;
  try {
    hash = (JSON.parse(raw.toString('utf8')) as { hash?: unknown } | null)?.hash;
  } catch {
    hash = undefined;
  }
  return retrieveRoute(ctx, hash);
}

/**
 * The AI gateways' compression contract on the proxy's port: `POST /v1/compress`,
 * `GET /v1/retrieve/{hash}`, `POST /v1/retrieve` and `GET /health` (Headroom's, as LiteLLM's
 * guardrail and Kong's headroom provider call it) and `POST /portkey/hook` (Portkey's webhook
 * mutator). One log line a request, never bodies.
 *
 * @example
 * await startProxy({ config, store, routes: gatewayRoutes() });
 */
export function gatewayRoutes(options: GatewayRoutesOptions = {}): MoreRoutes {
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  return {
    serves(method, path) {
      if (method === 'GET' && (path === '/health' || RETRIEVE_BY_PATH.test(path))) return { json: false };
      if (method === 'POST' && POSTED.has(path)) return { json: true };
      return undefined;
    },
    async handle(ctx, req, res, url) {
      const started = performance.now();
      const path = url.pathname;
      const route = path.startsWith('/v1/retrieve') ? '/v1/retrieve' : path;
      const line = (status: number, extra: Record<string, unknown> = {}) =>
        ctx.log({
          method: req.method,
          path: route,
          status,
          ms: Math.round(performance.now() - started),
          ...extra,
        });
      if (path === '/health') {
        sendJson(res, 200, { status: 'healthy', service: 'spillway', version: ctx.version });
        return;
      }
      const refused = await gatewayRefusal(ctx, req);
      if (refused) {
        // Unread (within a bound) and the connection closed: a stranger's body is not drained forever.
        refuseUnread(req, res, 401, { detail: refused });
        return line(401, { refused: refused.slice(0, 120) });
      }
      const out = await answer(ctx, req, path, deadlineMs);
      if (!out) {
        refuseTooLarge(req, res, {
          detail: `the body is over spillway's limit of ${ctx.maxBodyBytes} bytes`,
        });
        return line(413);
      }
      sendJson(res, out.status, out.body);
      line(out.status, out.log);
    },
  };
}
