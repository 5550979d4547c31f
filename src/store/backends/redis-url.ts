import { SpillwayError } from '../../errors.js';

/** A URL with its password hidden, for messages. */
const redacted = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

/**
 * Checks a `redis://` or `rediss://` store URL before a client is made from it: the Redis
 * client's own errors for a bad port or database are a bare `TypeError`. Throws `SPILLWAY_USAGE`
 * saying what is wrong, with an example.
 *
 * @example
 * checkRedisUrl('redis://127.0.0.1:6379/0'); // ok
 * checkRedisUrl('redis://127.0.0.1:99999/0'); // throws: port "99999" is not 1-65535
 */
export function checkRedisUrl(url: string): void {
  const bad = (why: string) =>
    new SpillwayError(
      'SPILLWAY_USAGE',
      `invalid Redis URL "${redacted(url)}" (${why}): use redis://[user:password@]host:port/db, e.g. redis://127.0.0.1:6379/0`,
    );
  const m = /^(rediss?):\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)(?::([^/?#]*))?(\/[^?#]*)?(\?[^#]*)?$/.exec(url);
  if (!m) throw bad('not of that form');
  const [, , host, port, path] = m;
  if (!host) throw bad('no host');
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535))
    throw bad(`port "${port}" is not 1-65535`);
  const db = (path ?? '').replace(/^\//, '');
  if (db !== '' && (!/^\d{1,9}$/.test(db) || Number(db) > 2 ** 31 - 1))
    throw bad(`database "${db}" is not a number (0 is the default)`);
  try {
    new URL(url);
  } catch {
    throw bad('not a URL');
  }
}
