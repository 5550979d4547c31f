export { CACHE_TTL_MS, type RewriteDeps, type RewriteOutcome, rewriteRequest } from './rewrite.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  DEFAULT_UPSTREAMS,
  isLoopback,
  type ProxyOptions,
  type RunningProxy,
  startProxy,
} from './server.js';
export { type SessionState, SessionTable, type SessionTableOptions, sessionKey } from './sessions.js';
export { newStats, type ProxyStats, renderMetrics } from './stats.js';
