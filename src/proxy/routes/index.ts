export { dashboardDataRoute, dashboardPageRoute } from './dashboard.js';
export { expandRoute } from './expand.js';
export { mcpRoute } from './mcp.js';
export { healthRoute, isAuthorized, metricsRoute, statsRoute, unauthorized } from './observe.js';
export { rewriteRoute } from './rewrite.js';
export { isUpgrade, refuseUpgrade } from './upgrade.js';
