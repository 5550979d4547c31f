export type { LogLine, McpHandler } from './context.js';
export { DEFAULT_ADMISSION, DEFAULT_UPSTREAMS, isLoopback, type Upstreams } from './http/index.js';
export { type ProxyStats, renderMetrics } from './metrics/index.js';
export {
  type RewriteDeps,
  type RewriteOutcome,
  rewriteRequest,
  SessionTable,
  type SessionTableOptions,
  sessionKey,
} from './rewrite/index.js';
export { REWRITTEN } from './router.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  type ProxyOptions,
  type RunningProxy,
  startProxy,
} from './server.js';
