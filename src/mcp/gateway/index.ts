export {
  type GatewayBudgets,
  GatewayBudgetsSchema,
  type GatewayOptions,
  McpGateway,
  parseGatewayConfig,
} from './gateway.js';
export { HttpUpstream, type HttpUpstreamOptions } from './http-upstream.js';
