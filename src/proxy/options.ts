import type { ResolvedEngineConfig, WithEngineConfig } from '../engine/index.js';
import type { Store } from '../store/index.js';
import type { LogLine, McpHandler, MoreRoutes } from './context.js';
import type { AdmissionLimits, Upstreams } from './http/index.js';
import type { SessionTableOptions } from './rewrite/index.js';

export const DEFAULT_PORT = 4747;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * What {@link startProxy} in `./server.ts` takes; every field but the engine config and store has
 * a default. The engine config (`config`; `pipeline` is its former name) may be a promise: the
 * CLI resolves it (config file, schemas, stages) while the proxy already listens; a rejected one
 * stops the proxy with its error.
 */
export type ProxyOptions = ProxySettings &
  WithEngineConfig<ResolvedEngineConfig | Promise<ResolvedEngineConfig>>;

/** The proxy's settings besides its engine config. */
export interface ProxySettings {
  store: Store;
  host?: string;
  /** More names the Host header may give besides localhost, 127.0.0.1, ::1 and `host`. */
  allowHosts?: readonly string[];
  port?: number;
  upstreams?: Partial<Upstreams>;
  /** Forward untouched; report what would have been saved. */
  observe?: boolean;
  /** Required on every route but /healthz (and required when not on loopback). */
  token?: string;
  /**
   * Required on every route that reads state (/stats, /metrics, /expand, /mcp, /dashboard.json):
   * a token only this user can read, so other local users can neither recall this user's
   * outputs nor read their sessions, ids and costs (the CLI keeps it in ~/.spillway/token).
   */
  recallToken?: { token: string; file?: string };
  /**
   * Answer only this uid's processes (Linux: the peer socket's owner, from /proc/net/tcp and
   * tcp6, looked up once per connection): another local user's requests get 403 unless they
   * carry the recall token, so they are never stashed into this user's store nor spend its
   * quota. Elsewhere connections are not told apart (the tokens still guard state).
   */
  ownerUid?: number;
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
  /**
   * Offer `spillway_expand` to a conversation with markers whose client has no such tool, and
   * answer its calls in the proxy (default true; `--no-recall-tool` turns it off).
   */
  recallTool?: boolean;
  /** More routes on the proxy's port: the CLI passes the AI gateways' (`/v1/compress`, `/portkey/hook`). */
  routes?: MoreRoutes;
}
