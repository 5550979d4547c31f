import { parseClusterUrl } from './redis-cluster-url.js';
import { connectOrExplain } from './redis-common.js';
import { importRedis } from './redis-import.js';
import type { RedisBufferReads, RedisReads } from './redis-reads.js';

// The parts of node-redis's cluster client this store uses.
export interface ClusterClient extends RedisReads {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (err: Error) => void): unknown;
  eval(script: string, options: { keys: string[]; arguments: (string | Buffer)[] }): Promise<unknown>;
  sendCommand(firstKey: string, isReadonly: boolean, args: string[]): Promise<unknown>;
  readonly slots: ReadonlyArray<{ replicas?: readonly unknown[] } | undefined>;
  zRange(key: string, min: number, max: number): Promise<string[]>;
  del(keys: string | string[]): Promise<number>;
  pExpire(key: string, ms: number): Promise<number>;
  withTypeMapping(mapping: Record<number, unknown>): RedisBufferReads;
}

/**
 * Connects node-redis's cluster client through any of the URL's nodes, or fails with a clear
 * error (the password never in it). Returns the client, the URL to show, and the type mapping
 * that reads bodies as Buffers.
 *
 * @example
 * const { client } = await connectCluster('redis-cluster://127.0.0.1:7000', 3000);
 */
export async function connectCluster(
  url: string,
  connectTimeoutMs: number,
): Promise<{ client: ClusterClient; redacted: string; typeMap: Record<number, unknown> }> {
  const parsed = parseClusterUrl(url);
  const redis = await importRedis();
  const client = await connectOrExplain(
    (reconnectStrategy) =>
      redis.createCluster({
        rootNodes: parsed.nodes.map((node) => ({ url: node })),
        // A node that went away is looked up again a second later (default 5 s): its replica
        // has taken its slots by then, and writes resume on the new master.
        topologyRefreshOnReconnectionAttemptStrategy: 1000,
        defaults: {
          ...(parsed.username ? { username: parsed.username } : {}),
          ...(parsed.password !== undefined ? { password: parsed.password } : {}),
          disableOfflineQueue: true,
          socket: {
            ...(parsed.tls ? { tls: true as const } : {}),
            connectTimeout: connectTimeoutMs,
            reconnectStrategy,
          },
        },
      }) as unknown as ClusterClient,
    `the Redis Cluster at ${parsed.redacted}`,
    'is every node given running with cluster-enabled yes?',
  );
  return { client, redacted: parsed.redacted, typeMap: { [redis.RESP_TYPES.BLOB_STRING]: Buffer } };
}
