import { SpillwayError } from '../../errors.js';

// A module of its own, which no public declaration imports: its type names "redis" (an optional
// peer), and a project without redis that checks libraries' types must still compile.

/**
 * Loads node-redis (an optional peer), or says how to install it.
 *
 * @example
 * const redis = await importRedis();
 */
export async function importRedis(): Promise<typeof import('redis')> {
  try {
    return await import('redis');
  } catch (err) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      'the Redis store needs the "redis" package: npm install redis@6.3.1',
      {
        cause: err,
      },
    );
  }
}
