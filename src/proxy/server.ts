import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { SpillwayError } from '../errors.js';
import { Calibration } from '../pipeline/calibration.js';
import type { ResolvedPipeline } from '../pipeline/config.js';
import { DiscardStore } from '../store/discard-store.js';
import type { Store } from '../store/store.js';
import { heuristicTokenizer } from '../text/tokenizers/heuristic.js';
import { Admission, type AdmissionLimits } from './admission.js';
import type { LogLine, McpHandler, ProxyContext } from './context.js';
import { isLoopback, redactedTarget, sendJson } from './http.js';
import { route } from './router.js';
import { SessionTable, type SessionTableOptions } from './sessions.js';
import { newStats, type ProxyStats } from './stats.js';
import { resolveUpstreams, type Upstreams } from './upstreams.js';

export const DEFAULT_PORT = 4747;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ProxyOptions {
  pipeline: ResolvedPipeline;
  store: Store;
  host?: string;
  port?: number;
  upstreams?: Partial<Upstreams>;
  /** Forward untouched; report what would have been saved. */
  observe?: boolean;
  /** Required on every route but /healthz (and required when not on loopback). */
  token?: string;
  /**
   * Required on /expand and /mcp: a token only this user can read, so other local users cannot
   * recall this user's outputs (the CLI keeps it in ~/.spillway/token).
   */
  recallToken?: { token: string; file?: string };
  maxBodyBytes?: number;
  /** Limits on rewrites at once (see {@link Admission}). */
  admission?: Partial<AdmissionLimits>;
  /** One structured line per request; never bodies or keys (default: JSON lines on stderr). */
  log?: LogLine;
  sessions?: SessionTableOptions;
  /** Serves `/mcp` (the CLI passes spillway's MCP server: `mcpHttpHandler(store)`). */
  mcp?: McpHandler;
  version?: string;
  /** A context window (tokens) for every request, instead of the model table's. */
  window?: number;
}

export interface RunningProxy {
  server: Server;
  url: string;
  stats: ProxyStats;
  close(): Promise<void>;
}

function refuseOpenBind(host: string, token: string | undefined): void {
  if (!isLoopback(host) && !token)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `refusing to listen on ${host} without a token: /expand, /mcp and /stats would be open to the network; pass --token T (or SPILLWAY_TOKEN), or bind 127.0.0.1`,
    );
}

function listenError(err: unknown, host: string, port: number): SpillwayError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use; pick another with --port N (0 picks a free one)`
      : code === 'EACCES'
        ? `not allowed to listen on ${host}:${port}; use a port above 1023`
        : code === 'EADDRNOTAVAIL'
          ? `${host} is not an address of this machine`
          : (err as Error).message;
  return new SpillwayError('SPILLWAY_IO', `cannot start the proxy: ${why}`, { cause: err });
}

/**
 * Starts the spillway proxy: Anthropic Messages (and count_tokens), OpenAI Chat Completions and
 * Responses rewritten through one conversation engine per session; every other path passed
 * through untouched; recall at `/expand`, `/healthz`, `/stats`, `/metrics`, and MCP at `/mcp`
 * when given a handler.
 *
 * @example
 * const proxy = await startProxy({ pipeline: resolvePipeline(), store: new FileStore(), port: 0 });
 * console.log(`ANTHROPIC_BASE_URL=${proxy.url}`);
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  refuseOpenBind(host, options.token);
  let agent: Promise<Agent> | undefined;
  const ctx: ProxyContext = {
    store: options.store,
    // The proxy counts tokens as bytes / 4: cheap on a hot path, from sizes already measured.
    // Observing measures what would be saved and writes nothing: no stash, no frozen decision.
    sessions: new SessionTable(
      {
        pipeline: options.pipeline,
        store: options.observe ? new DiscardStore() : options.store,
        statsTokenizer: heuristicTokenizer,
        // A new conversation starts from the factor other conversations learned for its model.
        calibrationPrior: new Calibration(),
      },
      options.sessions,
    ),
    stats: newStats(options.observe ?? false),
    upstreams: resolveUpstreams(options.upstreams),
    // No body or header timeout: a model that thinks for minutes before its first byte, or
    // between two events of a stream, must not be cut off by the proxy.
    dispatcher: async () => {
      agent ??= import('undici').then(
        ({ Agent }) => new Agent({ bodyTimeout: 0, headersTimeout: 0, keepAliveTimeout: 30_000 }),
      );
      return agent;
    },
    log: options.log ?? ((line) => process.stderr.write(`${JSON.stringify(line)}\n`)),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    admission: new Admission(options.admission),
    observe: options.observe ?? false,
    token: options.token,
    recallToken: options.recallToken?.token,
    recallTokenFile: options.recallToken?.file,
    mcp: options.mcp,
    version: options.version,
    window: options.window,
  };
  const server = createServer((req, res) => {
    route(ctx, req, res).catch((err) => {
      ctx.log({
        method: req.method,
        path: redactedTarget(req.url),
        status: 500,
        error: (err as Error).message,
      });
      if (res.headersSent) return res.destroy();
      sendJson(res, 500, {
        error: { type: 'internal_error', message: 'spillway failed to handle this request; see its log' },
      });
    });
  });
  // CONNECT asks for a tunnel to another host: spillway is no forward proxy. Node hands it to
  // this event, not to the request handler; without one the socket would just close.
  server.on('connect', (_req, socket) => {
    socket.end(
      'HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"error":{"type":"method_not_allowed","message":"spillway does not tunnel (CONNECT); send requests to it directly"}}',
    );
  });
  const port = options.port ?? DEFAULT_PORT;
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    throw listenError(err, host, port);
  }
  // The tokenizer's tables load on the first count (~300 ms): a proxy loads them right after it
  // listens, so it is up at once and a request rarely waits for them.
  setTimeout(() => options.pipeline.tokenizer.count('spillway'), 0).unref();
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    stats: ctx.stats,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      // Decisions are written after their turn: a clean stop waits for the last ones.
      await ctx.sessions.flush();
      await (await agent)?.close();
    },
  };
}
