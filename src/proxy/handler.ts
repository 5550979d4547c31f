import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'undici';
import { Calibration, type ResolvedEngineConfig } from '../engine/index.js';
import { DiscardStore } from '../store/backends/index.js';
import { heuristicTokenizer } from '../text/tokenizers/index.js';
import type { ProxyContext } from './context.js';
import {
  Admission,
  allowedHosts,
  OwnerGate,
  redactedTarget,
  resolveUpstreams,
  sendJson,
} from './http/index.js';
import { newStats } from './metrics/index.js';
import { DEFAULT_MAX_BODY_BYTES, type ProxyOptions } from './options.js';
import { RecallOffers } from './recall-offers.js';
import { SessionTable } from './rewrite/index.js';
import { route } from './router.js';

/** What answers the proxy's requests, once the engine config and the engine are loaded. */
export interface ProxyHandler {
  ctx: ProxyContext;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Waits for the last decisions to be written and closes upstream connections. */
  close(): Promise<void>;
}

/**
 * The proxy's request handler: one conversation engine per session behind the router. The
 * server imports this module after it listens, so a client connects at once and the engine's
 * modules load while it does.
 *
 * @example
 * const handler = createProxyHandler({ config, store }, config, 'ok');
 * server.on('request', handler.handle);
 */
export function createProxyHandler(
  options: ProxyOptions,
  config: ResolvedEngineConfig,
  defaultLog: ProxyContext['log'],
): ProxyHandler {
  let agent: Promise<Agent> | undefined;
  const ctx: ProxyContext = {
    store: options.store,
    // The proxy counts tokens as bytes / 4: cheap on a hot path, from sizes already measured.
    // Observing measures what would be saved and writes nothing: no stash, no frozen decision.
    sessions: new SessionTable(
      {
        config,
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
    log: options.log ?? defaultLog,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    admission: new Admission(options.admission),
    observe: options.observe ?? false,
    token: options.token,
    recallToken: options.recallToken?.token,
    recallTokenFile: options.recallToken?.file,
    mcp: options.mcp,
    version: options.version,
    window: options.window,
    owner: options.ownerUid === undefined ? undefined : new OwnerGate(options.ownerUid),
    hosts: allowedHosts(options.host ?? '127.0.0.1', options.allowHosts),
    recallOffers: options.recallTool === false || options.observe ? undefined : new RecallOffers(),
    routes: options.routes,
  };
  return {
    ctx,
    handle(req, res) {
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
    },
    async close() {
      // Decisions are written after their turn: a clean stop waits for the last ones.
      await ctx.sessions.flush();
      await (await agent)?.close();
    },
  };
}
