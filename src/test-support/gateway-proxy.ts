import { resolveEngineConfig } from '../engine/index.js';
import { type GatewayRoutesOptions, gatewayRoutes } from '../gateways/index.js';
import { type ProxyOptions, type RunningProxy, startProxy } from '../proxy/index.js';
import { MemoryStore } from '../store/index.js';

/**
 * A proxy on a free loopback port serving the gateways' routes, with a memory store and no log
 * unless given: what the gateways' tests and the Portkey hop bench stand up.
 *
 * @example
 * const proxy = await startGatewayProxy({ log: (line) => lines.push(line) });
 */
export function startGatewayProxy(
  options: Partial<ProxyOptions> & { gateway?: GatewayRoutesOptions } = {},
): Promise<RunningProxy> {
  const { gateway, ...rest } = options;
  return startProxy({
    config: resolveEngineConfig(),
    store: new MemoryStore(),
    port: 0,
    log: () => {},
    routes: gatewayRoutes(gateway),
    ...rest,
  });
}
