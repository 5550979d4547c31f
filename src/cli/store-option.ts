import { SpillwayError } from '../errors.js';
import { openStore, type Store } from '../store/index.js';

/** The options every command that touches stored outputs takes. */
export const STORE_OPTIONS = { dir: { type: 'string' }, store: { type: 'string' } } as const;

export const STORE_HELP = `  --dir D        file store base (default: $SPILLWAY_HOME/tool-results,
                 else ~/.spillway/tool-results)
  --store URL    redis://host:port/db to share one store between proxies, or
                 redis-cluster://host:port[,host:port...] for a Redis Cluster (or $SPILLWAY_STORE)`;

/**
 * The store a command should use: Redis (or a Redis Cluster) when `--store URL` (or
 * `SPILLWAY_STORE`) names one,
 * else the file store at `--dir`, else at the default base. Close it when done.
 *
 * @example
 * const store = await storeFromOptions(values, io.env);
 * try { ... } finally { await store.close?.(); }
 */
export async function storeFromOptions(
  values: { dir?: string; store?: string },
  env: NodeJS.ProcessEnv,
): Promise<Store> {
  const url = values.store ?? (env.SPILLWAY_STORE?.trim() || undefined);
  if (url !== undefined && values.dir !== undefined)
    throw new SpillwayError('SPILLWAY_USAGE', 'give --dir D or --store URL, not both');
  return openStore({ url, base: values.dir }, env);
}

/**
 * Runs `fn` with the command's store and closes it afterwards (a Redis connection would
 * otherwise keep the process alive).
 *
 * @example
 * const page = await withStore(values, io.env, (store) => recall(id, { store }));
 */
export async function withStore<T>(
  values: { dir?: string; store?: string },
  env: NodeJS.ProcessEnv,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await storeFromOptions(values, env);
  try {
    return await fn(store);
  } finally {
    await store.close?.();
  }
}
