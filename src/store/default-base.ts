import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The file store's base: `$SPILLWAY_HOME/tool-results`, else `~/.spillway/tool-results`.
 *
 * @example
 * defaultBase({ SPILLWAY_HOME: '/srv/spillway' }); // '/srv/spillway/tool-results'
 */
export function defaultBase(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.SPILLWAY_HOME?.trim();
  return join(home ? home : join(homedir(), '.spillway'), 'tool-results');
}
