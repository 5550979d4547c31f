import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { engineConfigOf, type ResolvedEngineConfig } from '../engine/index.js';
import { SpillwayError } from '../errors.js';
import { getTokenizer, warmTokenizer } from '../text/tokenizers/index.js';
import type { ProxyHandler } from './handler.js';
import { isLoopback, sendJson } from './http/index.js';
import type { ProxyStats } from './metrics/index.js';
import { DEFAULT_PORT, type ProxyOptions } from './options.js';

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT, type ProxyOptions, type ProxySettings } from './options.js';

export interface RunningProxy {
  server: Server;
  url: string;
  stats: ProxyStats;
  /** The engine config the proxy runs. */
  config: ResolvedEngineConfig;
  /** @deprecated The former name of `config`. */
  pipeline: ResolvedEngineConfig;
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
 * const proxy = await startProxy({ config: resolveEngineConfig(), store: new FileStore(), port: 0 });
 * console.log(`ANTHROPIC_BASE_URL=${proxy.url}`);
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const config = Promise.resolve(
    engineConfigOf<ResolvedEngineConfig | Promise<ResolvedEngineConfig>>(options),
  );
  config.catch(() => {}); // a rejection is this function's to report, not an unhandled one
  const host = options.host ?? '127.0.0.1';
  refuseOpenBind(host, options.token);
  // Nothing slow before listen: the engine's modules and the engine config load once the port is
  // open, so a client started beside the proxy connects at once; its first request waits for
  // them (about 100 ms) instead of being refused.
  let handler: ProxyHandler | undefined;
  const ready = Promise.all([import('./handler.js'), config]).then(([m, resolved]) => {
    // The tokenizers' tables load before the first request is handled (about half a second,
    // blocking): loaded later, on a recall's first grep say, they would stall every request
    // then in flight, /healthz included.
    warmTokenizer(resolved.tokenizer);
    warmTokenizer(getTokenizer('o200k'));
    handler = m.createProxyHandler(options, resolved, (line) =>
      process.stderr.write(`${JSON.stringify(line)}\n`),
    );
    return handler;
  });
  ready.catch(() => {}); // handled below, after listen; a request meanwhile gets a 503
  const server = createServer((req, res) => {
    if (handler) return handler.handle(req, res);
    ready.then(
      (h) => h.handle(req, res),
      () =>
        sendJson(res, 503, {
          error: { type: 'unavailable', message: 'spillway failed to start; see its log' },
        }),
    );
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
  const close = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
    await handler?.close();
  };
  let h: ProxyHandler;
  try {
    h = await ready;
  } catch (err) {
    await close();
    throw err;
  }
  const resolved = await config;
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    stats: h.ctx.stats,
    config: resolved,
    pipeline: resolved,
    close,
  };
}
