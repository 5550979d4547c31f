export { Admission, DEFAULT_ADMISSION } from './admission.js';
export type { LogLine, McpHandler, MoreRoutes, ProxyContext } from './context.js';
export { BodyTooLarge, isLoopback, readBody, refuseTooLarge, sendJson } from './http.js';
export { canonicalAddress } from './proc-net-tcp.js';
export { type RewriteDeps, type RewriteOutcome, rewriteRequest } from './rewrite.js';
export { REWRITTEN } from './router.js';
export { isAuthorized } from './routes/index.js';
export { recordRequest } from './savings.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PORT,
  type ProxyOptions,
  type RunningProxy,
  startProxy,
} from './server.js';
export { SessionTable, type SessionTableOptions, sessionKey } from './sessions.js';
export { countRequest, type ProxyStats, recordRewrite, renderMetrics } from './stats.js';
export { DEFAULT_UPSTREAMS, type Upstreams } from './upstreams.js';
