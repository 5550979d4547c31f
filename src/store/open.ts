import { SpillwayError } from '../errors.js';
import { defaultBase } from '../home/index.js';
import type { Store } from './store.js';

/** Where a store is: a Redis or Redis Cluster URL, else a file store's folder. */
export interface StoreLocation {
  /** `redis://`, `rediss://` or `redis-cluster://` (a fleet's shared store). */
  url?: string | undefined;
  /** The file store's base folder (default: $SPILLWAY_HOME/tool-results, else ~/.spillway/tool-results). */
  base?: string | undefined;
}

/**
 * Opens the store a location names: a Redis Cluster or Redis store for a URL (checked first, its
 * password never in a message), else the file store at `base` or the default base. The backend
 * is loaded when used: a client hook after every shell command loads no Redis client. Close it
 * when done.
 *
 * @example
 * const store = await openStore({ url: 'redis://127.0.0.1:6379/0' }, process.env);
 * try { ... } finally { await store.close?.(); }
 */
export async function openStore(location: StoreLocation, env: NodeJS.ProcessEnv): Promise<Store> {
  const { url } = location;
  if (url !== undefined) {
    const { isClusterUrl } = await import('./backends/redis-cluster-url.js');
    if (isClusterUrl(url))
      return (await import('./backends/redis-cluster-store.js')).RedisClusterStore.connect(url);
    if (!/^rediss?:\/\//.test(url))
      throw new SpillwayError(
        'SPILLWAY_USAGE',
        `a store URL is a Redis URL such as redis://127.0.0.1:6379/0 or redis-cluster://10.0.0.1:7000,10.0.0.2:7000, got "${url.replace(/\/\/[^@/]*@/, '//***@')}"`,
      );
    (await import('./backends/redis-url.js')).checkRedisUrl(url);
    return (await import('./backends/redis-store.js')).RedisStore.connect(url);
  }
  const { FileStore } = await import('./backends/file-store.js');
  return new FileStore({ base: location.base ?? defaultBase(env) });
}
