import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request as undiciRequest } from 'undici';
import { SpillwayError } from '../errors.js';
import type { ApiName } from '../formats/types.js';
import { handleMcpRequest } from '../mcp/http.js';
import type { ResolvedPipeline } from '../pipeline/config.js';
import { recall } from '../store/recall.js';
import type { Store } from '../store/store.js';
import { heuristicTokenizer } from '../text/tokenizers/heuristic.js';
import { rewriteRequest } from './rewrite.js';
import { SessionTable, type SessionTableOptions } from './sessions.js';
import { addStageStats, newStats, type ProxyStats, renderMetrics } from './stats.js';

export const DEFAULT_PORT = 4747;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_UPSTREAMS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
} as const;

export interface ProxyOptions {
  pipeline: ResolvedPipeline;
  store: Store;
  host?: string;
  port?: number;
  upstreams?: { anthropic?: string; openai?: string };
  /** Forward untouched; report what would have been saved. */
  observe?: boolean;
  /** Bearer token for /expand, /mcp, /stats and /metrics (required when not on loopback). */
  token?: string;
  maxBodyBytes?: number;
  /** One structured line per request; never bodies or keys (default: JSON lines on stderr). */
  log?: (line: Record<string, unknown>) => void;
  sessions?: SessionTableOptions;
  /** Test hook: the pipeline throws on every request. */
  failPipeline?: boolean;
  version?: string;
}

export interface RunningProxy {
  server: Server;
  url: string;
  stats: ProxyStats;
  close(): Promise<void>;
}

const REWRITTEN: Record<string, ApiName> = {
  '/v1/messages': 'anthropic',
  '/v1/messages/count_tokens': 'anthropic',
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
};

// Hop-by-hop headers (RFC 9110 7.6.1) are never forwarded; on requests, neither are the ones
// the proxy sets itself.
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
];
const DROP_REQUEST = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect']);
const DROP_RESPONSE = new Set(HOP_BY_HOP);

/**
 * True for addresses only this machine can reach.
 *
 * @example
 * isLoopback('127.0.0.1'); // true
 * isLoopback('0.0.0.0'); // false
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function upstreamHeaders(
  headers: IncomingHttpHeaders,
  bodyLength: number | undefined,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROP_REQUEST.has(name) || name.startsWith('x-spillway-')) continue;
    out[name] = value;
  }
  if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
  return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An error in the shape the client's SDK expects for its API. */
function apiError(api: ApiName | undefined, type: string, message: string): unknown {
  return api === 'anthropic'
    ? { type: 'error', error: { type, message } }
    : { error: { type, message, code: type } };
}

/**
 * Starts the spillway proxy: Anthropic Messages (and count_tokens), OpenAI Chat Completions and
 * Responses rewritten through the pipeline; every other path passed through untouched; recall
 * at `/expand`, MCP at `/mcp`, `/healthz`, `/stats`, `/metrics`.
 *
 * @example
 * const proxy = await startProxy({ pipeline: resolvePipeline(), store: new FileStore(), port: 0 });
 * console.log(`ANTHROPIC_BASE_URL=${proxy.url}`);
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token;
  if (!isLoopback(host) && !token) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `refusing to listen on ${host} without a token: /expand, /mcp and /stats would be open to the network; pass --token T (or SPILLWAY_TOKEN), or bind 127.0.0.1`,
    );
  }
  const upstreams = { ...DEFAULT_UPSTREAMS, ...options.upstreams };
  for (const [name, url] of Object.entries(upstreams)) {
    try {
      new URL(url);
    } catch {
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `the ${name} upstream "${url}" is not a URL; give one like https://api.${name}.com`,
      );
    }
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const stats = newStats(options.observe ?? false);
  const sessions = new SessionTable(options.store, options.sessions);
  const log = options.log ?? ((line) => process.stderr.write(`${JSON.stringify(line)}\n`));
  // No body or header timeout: a model that thinks for minutes before its first byte, or between
  // two events of a stream, must not be cut off by the proxy.
  const agent = new Agent({ bodyTimeout: 0, headersTimeout: 0, keepAliveTimeout: 30_000 });
  const deps = {
    pipeline: options.pipeline,
    store: options.store,
    sessions,
    statsTokenizer: heuristicTokenizer,
    observe: options.observe,
    failPipeline: options.failPipeline,
  };

  const authorized = (req: IncomingMessage) => !token || req.headers.authorization === `Bearer ${token}`;

  const upstreamFor = (path: string, headers: IncomingHttpHeaders, api: ApiName | undefined): string => {
    const anthropic =
      api === 'anthropic' ||
      (!api &&
        (path.startsWith('/v1/messages') ||
          path.startsWith('/v1/complete') ||
          headers['anthropic-version'] !== undefined));
    return anthropic ? upstreams.anthropic : upstreams.openai;
  };

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    api: ApiName | undefined,
    body: Buffer | undefined,
    started: number,
    extra: Record<string, unknown>,
  ): Promise<void> {
    const base = new URL(upstreamFor(req.url ?? '/', req.headers, api));
    const target = new URL(base.href.replace(/\/$/, '') + (req.url ?? '/'));
    const controller = new AbortController();
    let bytesOut = 0;
    const onClose = () => {
      if (!res.writableFinished) {
        stats.clientAborts++;
        controller.abort();
      }
    };
    res.on('close', onClose);
    // A rewritten request sends its (possibly new) bytes; any other one streams its own body.
    const streamed = req.method === 'GET' || req.method === 'HEAD' ? undefined : req;
    const upstreamBody = body === undefined ? streamed : body.length > 0 ? body : undefined;
    try {
      const upstream = await undiciRequest(target, {
        method: (req.method ?? 'GET') as 'GET',
        headers: upstreamHeaders(req.headers, body?.length),
        body: upstreamBody,
        signal: controller.signal,
        dispatcher: agent,
      });
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (value !== undefined && !DROP_RESPONSE.has(name)) headers[name] = value;
      }
      res.writeHead(upstream.statusCode, headers);
      // Piped as it arrives: every SSE event reaches the client when the upstream sends it.
      for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
        bytesOut += chunk.length;
        if (!res.write(chunk)) await once(res, 'drain');
      }
      res.end();
      log({
        ...extra,
        method: req.method,
        path: req.url,
        status: upstream.statusCode,
        bytesOut,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      if (controller.signal.aborted) {
        log({
          ...extra,
          method: req.method,
          path: req.url,
          status: 499,
          bytesOut,
          ms: Math.round(performance.now() - started),
          aborted: true,
        });
        return;
      }
      if (!res.headersSent) {
        stats.upstreamErrors++;
        const reason = (err as { code?: string }).code ?? (err as Error).message;
        sendJson(
          res,
          502,
          apiError(
            api,
            'upstream_unreachable',
            `spillway could not reach the upstream ${base.origin}: ${reason}; check that it is up and that --${api === 'anthropic' ? 'anthropic' : 'openai'}-upstream is right`,
          ),
        );
        log({
          ...extra,
          method: req.method,
          path: req.url,
          status: 502,
          ms: Math.round(performance.now() - started),
          error: reason,
        });
      } else {
        res.destroy(err as Error);
      }
    } finally {
      res.off('close', onClose);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/healthz')
      return sendJson(res, 200, { ok: true, version: options.version });
    if (path === '/stats' || path === '/metrics' || path === '/expand' || path === '/mcp') {
      if (!authorized(req))
        return sendJson(res, 401, {
          error: {
            type: 'unauthorized',
            message: `${path} needs "Authorization: Bearer <token>" (the proxy's --token)`,
          },
        });
      if (path === '/stats') return sendJson(res, 200, { ...stats, sessions: sessions.size });
      if (path === '/metrics') {
        const text = renderMetrics(stats);
        res.writeHead(200, {
          'content-type': 'text/plain; version=0.0.4',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
        return;
      }
      if (path === '/expand') {
        const id = url.searchParams.get('id') ?? '';
        const offsetText = url.searchParams.get('offset') ?? '0';
        try {
          if (!/^\d+$/.test(offsetText))
            throw new SpillwayError(
              'SPILLWAY_BAD_INPUT',
              `offset must be a whole number >= 0, got "${offsetText}"`,
            );
          const page = await recall(id, { store: options.store, offset: Number(offsetText) });
          res.writeHead(200, {
            'content-type': 'text/plain; charset=utf-8',
            'content-length': Buffer.byteLength(page.text),
          });
          res.end(page.text);
        } catch (err) {
          const code = SpillwayError.isInstance(err) ? err.code : 'SPILLWAY_IO';
          const status =
            code === 'SPILLWAY_NOT_FOUND'
              ? 404
              : code === 'SPILLWAY_BAD_ID' || code === 'SPILLWAY_BAD_INPUT'
                ? 400
                : 500;
          sendJson(res, status, { error: { type: code, message: (err as Error).message } });
        }
        return;
      }
      let body: unknown;
      if (req.method === 'POST') {
        try {
          body = JSON.parse((await readBody(req, maxBodyBytes)).toString('utf8'));
        } catch {
          return sendJson(res, 400, {
            jsonrpc: '2.0',
            error: { code: -32700, message: 'Parse error: the body is not JSON' },
            id: null,
          });
        }
      }
      return handleMcpRequest(options.store, req, res, body, options.version);
    }

    const api = req.method === 'POST' ? REWRITTEN[path] : undefined;
    stats.requests++;
    stats.byApi[api ?? 'passthrough'] = (stats.byApi[api ?? 'passthrough'] ?? 0) + 1;
    if (!api) return forward(req, res, undefined, undefined, started, {});

    let raw: Buffer;
    try {
      raw = await readBody(req, maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        stats.tooLarge++;
        res.setHeader('connection', 'close');
        sendJson(
          res,
          413,
          apiError(
            api,
            'request_too_large',
            `the request body is over spillway's limit of ${maxBodyBytes} bytes; raise it with --max-body-bytes`,
          ),
        );
        req.resume();
        return;
      }
      throw err;
    }
    const header = req.headers['x-spillway-session'];
    const out = await rewriteRequest(api, raw, Array.isArray(header) ? header[0] : header, deps, {
      updateBoundary: path !== '/v1/messages/count_tokens',
    });
    if (out.unparseable) stats.unparseable++;
    if (out.failOpen) stats.failOpen++;
    if (out.changed) stats.rewritten++;
    stats.tokensBefore += out.tokensBefore;
    stats.tokensAfter += out.tokensAfter;
    stats.tokensSaved += out.tokensBefore - out.tokensAfter;
    stats.frozenReplayed += out.frozenReplayed;
    stats.freezeFailures += out.freezeFailures;
    addStageStats(stats, out.stages);
    return forward(req, res, api, out.body, started, {
      api,
      session: out.session,
      bytesIn: raw.length,
      bytesUp: out.body.length,
      tokensSaved: out.tokensBefore - out.tokensAfter,
      ...(out.failOpen ? { failOpen: out.failOpen.message } : {}),
      ...(out.unparseable ? { unparseable: out.unparseable } : {}),
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      log({ method: req.method, path: req.url, status: 500, error: (err as Error).message });
      if (!res.headersSent)
        sendJson(res, 500, {
          error: { type: 'internal_error', message: 'spillway failed to handle this request; see its log' },
        });
      else res.destroy();
    });
  });
  const port = options.port ?? DEFAULT_PORT;
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    await agent.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use; pick another with --port N (0 picks a free one)`
        : code === 'EACCES'
          ? `not allowed to listen on ${host}:${port}; use a port above 1023`
          : code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine`
            : (err as Error).message;
    throw new SpillwayError('SPILLWAY_IO', `cannot start the proxy: ${why}`, { cause: err });
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    stats,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await agent.close();
    },
  };
}
