import { describe, expect, it } from 'vitest';
import { isClusterUrl, parseClusterUrl } from './redis-cluster-url.js';

describe('parseClusterUrl', () => {
  it('takes every seed node, credentials apart and hidden in the redacted form', () => {
    expect(parseClusterUrl('redis-cluster://10.0.0.1:7000,10.0.0.2:7001')).toEqual({
      nodes: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001'],
      username: undefined,
      password: undefined,
      tls: false,
      redacted: 'redis-cluster://10.0.0.1:7000,10.0.0.2:7001',
    });
    const secret = parseClusterUrl('rediss-cluster://app:p%40ss@redis.internal:6380');
    expect(secret).toMatchObject({
      nodes: ['rediss://redis.internal:6380'],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(secret.redacted).toBe('rediss-cluster://app:***@redis.internal:6380');
    expect(parseClusterUrl('redis-cluster://:pw@[::1]:7000/').redacted).toBe(
      'redis-cluster://:***@[::1]:7000',
    );
  });

  it('refuses what is not host:port, saying what it wants', () => {
    for (const bad of [
      'redis-cluster://',
      'redis-cluster://host',
      'redis-cluster://a:1,,b:2',
      'redis-cluster://a:99999',
      'redis-cluster://a:1/0',
      'redis-cluster://a:1?x=1',
    ])
      expect(() => parseClusterUrl(bad), bad).toThrow(
        /invalid Redis Cluster URL .*redis-cluster:\/\/host:port/,
      );
  });

  it('tells a cluster URL from a single server', () => {
    expect(isClusterUrl('redis-cluster://a:1')).toBe(true);
    expect(isClusterUrl('rediss-cluster://a:1')).toBe(true);
    expect(isClusterUrl('redis://a:1/0')).toBe(false);
  });
});
