import { SpillwayError } from '../../errors.js';

/** A cluster store URL taken apart. */
export interface ClusterUrl {
  /** One `redis://` (or `rediss://`) URL per seed node. */
  nodes: string[];
  /** For every node, seeds and those discovered alike. */
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL with any password hidden, for messages and logs. */
  redacted: string;
}

/**
 * Whether a store URL names a Redis Cluster.
 *
 * @example
 * isClusterUrl('redis-cluster://10.0.0.1:7000,10.0.0.2:7000'); // true
 */
export function isClusterUrl(url: string): boolean {
  return /^rediss?-cluster:\/\//.test(url);
}

/**
 * Parses `redis-cluster://[user:password@]host:port[,host:port...]` (`rediss-cluster://` for
 * TLS): any node may be given, the client discovers the rest. Throws `SPILLWAY_USAGE` with an
 * example on anything else.
 *
 * @example
 * parseClusterUrl('redis-cluster://:pw@10.0.0.1:7000,10.0.0.2:7000').nodes;
 * // ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000']
 */
export function parseClusterUrl(url: string): ClusterUrl {
  const m = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/.exec(url);
  const bad = (why: string) =>
    new SpillwayError(
      'SPILLWAY_USAGE',
      `invalid Redis Cluster URL (${why}): use redis-cluster://host:port[,host:port...], e.g. redis-cluster://127.0.0.1:7000,127.0.0.1:7001`,
    );
  if (!m) throw bad('not redis-cluster://[user:password@]host:port[,host:port...]');
  const [, scheme, auth, hostList = ''] = m;
  const hosts = hostList.split(',').map((h) => h.trim());
  for (const h of hosts)
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(h) || Number(h.split(':').pop()) > 65535)
      throw bad(`"${h}" is not host:port`);
  const colon = auth?.indexOf(':') ?? -1;
  const username = decodeURIComponent(colon >= 0 ? (auth?.slice(0, colon) ?? '') : (auth ?? '')) || undefined;
  const password = colon >= 0 ? decodeURIComponent(auth?.slice(colon + 1) ?? '') : undefined;
  const hidden = password !== undefined ? `${username ?? ''}:***@` : username ? `${username}@` : '';
  return {
    nodes: hosts.map((h) => `${scheme}://${h}`),
    username,
    password,
    tls: scheme === 'rediss',
    redacted: `${scheme}-cluster://${hidden}${hosts.join(',')}`,
  };
}
