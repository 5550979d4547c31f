import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * spillway's own folder (its store, its token, what setup backed up): `$SPILLWAY_HOME`, else
 * `.spillway` in the home folder (`$HOME` of `env`, else the user's).
 *
 * @example
 * spillwayHome({ HOME: '/home/me' }); // '/home/me/.spillway'
 */
export function spillwayHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.SPILLWAY_HOME?.trim() || join(env.HOME || homedir(), '.spillway');
}

/**
 * The file store's base: `$SPILLWAY_HOME/tool-results`, else `~/.spillway/tool-results`.
 *
 * @example
 * defaultBase({ SPILLWAY_HOME: '/srv/spillway' }); // '/srv/spillway/tool-results'
 */
export function defaultBase(env: NodeJS.ProcessEnv = process.env): string {
  return join(spillwayHome(env), 'tool-results');
}
