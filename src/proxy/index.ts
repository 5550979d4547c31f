export type { LogLine, McpHandler, MoreRoutes, ProxyContext } from './context.js';
export {
  Admission,
  BodyTooLarge,
  canonicalAddress,
  DEFAULT_ADMISSION,
  DEFAULT_UPSTREAMS,
  isLoopback,
  readBody,
  refuseTooLarge,
  refuseUnread,
  sendJson,
  UNQUEUED_BYTES,
  type Upstreams,
} from './http/index.js';
export {
  countRequest,
  type ProxyStats,
  recordRequest,
  recordRewrite,
  renderMetrics,
} from './metrics/index.js';
export {
  type RewriteDeps,
  type RewriteOutcome,
  rewriteRequest,
  SessionTable,
  type SessionTableOptions,
  sessionKey,
} from './rewrite/index.js';
export { REWRITTEN } from './router.js';
export { isAuthorized } from './routes/index.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  type ProxyOptions,
  type ProxySettings,
  type RunningProxy,
  startProxy,
} from './server.js';
