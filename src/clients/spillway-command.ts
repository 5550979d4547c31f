import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/**
 * A string as one POSIX shell word.
 *
 * @example
 * shellQuote("it's"); // `'it'\''s'`
 */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** How a client starts this spillway: absolute node and CLI paths, so no PATH is needed. */
export interface SpillwayCommand {
  command: string;
  args: string[];
}

/**
 * This installation's spillway, as an absolute command: the running node and this package's
 * `dist/cli.js`. Clients start hooks and MCP servers with a PATH of their own; a bare
 * `spillway` fails there unless it was linked globally.
 *
 * @example
 * spillwayCommand(); // { command: '/usr/bin/node', args: ['/usr/lib/node_modules/spillway/dist/cli.js'] }
 */
export function spillwayCommand(): SpillwayCommand {
  // Run from the TypeScript sources (tests, tsx) too, the command is the build of this checkout.
  return { command: process.execPath, args: [join(packageRoot(), 'dist/cli.js')] };
}

/**
 * The command line that runs spillway with `args`, quoted for a shell.
 *
 * @example
 * spillwayShell({ command: '/usr/bin/node', args: ['/opt/sw/cli.js'] }, ['hook', 'claude']); // '/usr/bin/node /opt/sw/cli.js hook claude'
 */
export function spillwayShell(spillway: SpillwayCommand, args: string[]): string {
  return [spillway.command, ...spillway.args, ...args].map(shellQuote).join(' ');
}
