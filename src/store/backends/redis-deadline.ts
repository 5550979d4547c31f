import { SpillwayError } from '../../errors.js';

/** How long one store command may take before it is given up (a node gone, a network cut). */
export const STORE_DEADLINE_MS = 10_000;

// A client's own bookkeeping: never raced (closing must be able to wait, events are not calls).
const UNTIMED = new Set<PropertyKey>([
  'connect',
  'quit',
  'close',
  'destroy',
  'disconnect',
  'on',
  'once',
  'off',
]);

/**
 * A Redis client (or cluster client) whose every command fails within `ms` with a
 * `SPILLWAY_IO` error naming `where` (as does any error a command answers with), instead of waiting for a node that is gone (node-redis
 * retries a lost cluster node without end). The command itself is left to the client; the
 * caller goes on (a recall fails, a stash is not made and the result goes whole).
 *
 * @example
 * const client = withDeadline(await connectCluster(url, 3000).client, STORE_DEADLINE_MS, 'the Redis Cluster at ...');
 */
export function withDeadline<C extends object>(client: C, ms: number, where: string): C {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function' || UNTIMED.has(prop)) return value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        // The same client reading Buffers: its commands have the deadline too.
        if (prop === 'withTypeMapping' && out && typeof out === 'object') return withDeadline(out, ms, where);
        return out instanceof Promise ? raced(out, ms, where, String(prop)) : out;
      };
    },
  });
}

function raced<T>(command: Promise<T>, ms: number, where: string, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => {
    timer = setTimeout(
      () =>
        fail(
          new SpillwayError(
            'SPILLWAY_IO',
            `${where} did not answer ${name} within ${ms / 1000} s: the node that holds this key is unreachable (a shard down, the network cut); nothing waits for it`,
          ),
        ),
      ms,
    );
  });
  command.catch(() => {}); // its own failure after the deadline is nobody's
  // A command's own error (CLUSTERDOWN, the client offline) names the store it came from too.
  const named = command.catch((err: unknown) => {
    if (SpillwayError.isInstance(err)) throw err;
    throw new SpillwayError('SPILLWAY_IO', `${where} failed ${name}: ${(err as Error).message}`, {
      cause: err,
    });
  });
  return Promise.race([named, late]).finally(() => clearTimeout(timer));
}
