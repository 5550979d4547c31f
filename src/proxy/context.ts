import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'undici';
import type { Store } from '../store/index.js';
import type { Admission, OwnerGate, Upstreams } from './http/index.js';
import type { ProxyStats } from './metrics/index.js';
import type { RecallOffers } from './recall-offers.js';
import type { SessionTable } from './rewrite/index.js';

/** Serves MCP over streamable HTTP at `/mcp`, with the request's parsed JSON body. */
export type McpHandler = (req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>;

/**
 * Routes served on the proxy's port beside its own (the AI gateways' compression contract),
 * given by the one who starts it: they sit above the proxy and see its context.
 */
export interface MoreRoutes {
  /** Whether a request is theirs, and whether its body must then be JSON. */
  serves(method: string | undefined, path: string): { json: boolean } | undefined;
  /** Answers one of their requests (its own checks of who may ask included). */
  handle(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

/** One structured log line; never bodies or keys. */
export type LogLine = (line: Record<string, unknown>) => void;

/** What every route of a running proxy shares. */
export interface ProxyContext {
  readonly store: Store;
  readonly sessions: SessionTable;
  readonly stats: ProxyStats;
  readonly upstreams: Upstreams;
  /** The upstream connection pool, made on the first forward (undici loads then, not at start). */
  readonly dispatcher: () => Promise<Agent>;
  readonly log: LogLine;
  readonly maxBodyBytes: number;
  /** Who may be rewritten now (bounded concurrency and bytes). */
  readonly admission: Admission;
  readonly observe: boolean;
  readonly token: string | undefined;
  /**
   * What the routes that read state (/stats, /metrics, /expand, /mcp, /dashboard.json) ask for
   * besides `token`: the user's own recall token, and its file.
   */
  readonly recallToken: string | undefined;
  readonly recallTokenFile: string | undefined;
  readonly mcp: McpHandler | undefined;
  readonly version: string | undefined;
  /** A context window for every request instead of the model table's (`--window`). */
  readonly window: number | undefined;
  /** Tells another local user's connections from the user's own (`ownerUid`), when asked to. */
  readonly owner: OwnerGate | undefined;
  /** The names a request's Host header may give (see siteProblem). */
  readonly hosts: ReadonlySet<string>;
  /** Conversations offered `spillway_expand` by the proxy; undefined with --no-recall-tool. */
  readonly recallOffers?: RecallOffers | undefined;
  /** More routes on the same port (`spillway proxy` serves the gateways' contract). */
  readonly routes?: MoreRoutes | undefined;
}
