import type { JSONPath } from 'jsonc-parser';
import { SpillwayError } from '../errors.js';
import { readJsonc, setJsonc } from './config-text.js';
import type { SpillwayCommand } from './spillway-command.js';

/** A client's stdio MCP server entry (Claude Code's and Gemini CLI's have this shape). */
type ServerEntry = Record<string, unknown> & { command?: unknown; args?: unknown };

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string')
    ? (v as string[])
    : v === undefined
      ? []
      : undefined;

/**
 * Where `spillway gateway --` sits in a wrapped entry's arguments: after spillway's own
 * arguments (any installation's: its command may have moved since), the word `gateway`, its
 * options, and `--`. Undefined for an entry spillway did not wrap.
 *
 * @example
 * wrapped({ command: '/usr/bin/node', args: ['/opt/sw/cli.js', 'gateway', '--', 'srv'] }); // { at: 2 }
 */
export function wrapped(entry: ServerEntry): { at: number } | undefined {
  const args = strings(entry.args);
  if (typeof entry.command !== 'string' || !args) return undefined;
  const gateway = args.indexOf('gateway');
  const end = args.indexOf('--', gateway + 1);
  const isSpillway =
    /(^|\/)spillway$/.test(entry.command) || /(^|\/)cli\.[jt]s$/.test(args[gateway - 1] ?? '');
  return gateway >= 0 && end > gateway && isSpillway ? { at: end } : undefined;
}

/**
 * The entry run through `spillway gateway`: the same server, its env and other fields as they
 * are, its command and arguments after the gateway's `--`. An entry with no command (an HTTP
 * server), or one already wrapped, is left as it is.
 *
 * @example
 * wrapServer({ command: 'npx', args: ['-y', 'server-filesystem', '/srv'] }, spillway);
 * // { command: '/usr/bin/node', args: ['/opt/sw/cli.js', 'gateway', '--no-expand', '--', 'npx', '-y', 'server-filesystem', '/srv'] }
 */
export function wrapServer(entry: ServerEntry, spillway: SpillwayCommand): ServerEntry {
  const args = strings(entry.args);
  if (typeof entry.command !== 'string' || !args || wrapped(entry)) return entry;
  return {
    ...entry,
    command: spillway.command,
    // Setup registers spillway's own MCP server beside: the gateway adds no second spillway_expand.
    args: [...spillway.args, 'gateway', '--no-expand', '--', entry.command, ...args],
  };
}

/**
 * A wrapped entry as it was before `wrapServer`; any other entry as it is.
 *
 * @example
 * unwrapServer(wrapServer(entry, spillway)); // entry
 */
export function unwrapServer(entry: ServerEntry): ServerEntry {
  const w = wrapped(entry);
  if (!w) return entry;
  const args = strings(entry.args) as string[];
  const [command, ...rest] = args.slice(w.at + 1);
  const { args: _, ...others } = entry;
  return { ...others, command, ...(rest.length > 0 || entry.args !== undefined ? { args: rest } : {}) };
}

/** The server entries under each container path of a JSON settings file, spillway's own left out. */
function serversIn(
  text: string,
  file: string,
  containers: readonly JSONPath[],
): { path: JSONPath; name: string; entry: ServerEntry }[] {
  const found: { path: JSONPath; name: string; entry: ServerEntry }[] = [];
  for (const path of containers) {
    let servers: unknown = readJsonc(text, file);
    for (const key of path) servers = (servers as Record<string | number, unknown> | undefined)?.[key];
    if (!servers || typeof servers !== 'object' || Array.isArray(servers)) continue;
    for (const [name, entry] of Object.entries(servers as Record<string, ServerEntry>))
      if (entry && typeof entry === 'object' && name !== 'spillway') found.push({ path, name, entry });
  }
  return found;
}

/**
 * The MCP servers of a JSON settings file that `--mcp` can name, and whether each already runs
 * through `spillway gateway` (by setup, or by hand).
 *
 * @example
 * serverNames(text, file, [['mcpServers']]); // [{ name: 'files', wrapped: false, stdio: true }]
 */
export function serverNames(
  text: string,
  file: string,
  containers: readonly JSONPath[],
): { name: string; wrapped: boolean; stdio: boolean }[] {
  return serversIn(text, file, containers).map(({ name, entry }) => ({
    name,
    wrapped: wrapped(entry) !== undefined,
    stdio: typeof entry.command === 'string',
  }));
}

/**
 * `text` (a JSON settings file) with the MCP servers under each of `containers` (paths of
 * objects mapping names to entries) that `names` selects wrapped (`all` selects every one but
 * spillway's own).
 *
 * @example
 * wrapServers(text, file, [['mcpServers']], ['files'], spillway);
 */
export function wrapServers(
  text: string,
  file: string,
  containers: readonly JSONPath[],
  names: readonly string[],
  spillway: SpillwayCommand,
): string {
  let out = text;
  const found = serversIn(text, file, containers);
  for (const { path, name, entry } of found)
    if (names.includes('all') || names.includes(name)) {
      const next = wrapServer(entry, spillway);
      if (next !== entry) out = setJsonc(out, [...path, name], next);
    }
  const unknown = names.filter((n) => n !== 'all' && !found.some((f) => f.name === n));
  if (unknown.length > 0)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `no MCP server named ${unknown.map((n) => `"${n}"`).join(', ')} in ${file}; it has: ${[...new Set(found.map((f) => f.name))].join(', ') || '(none)'}`,
    );
  return out;
}

/**
 * `text` with the servers setup wrapped (`names`) unwrapped; a server the user runs through the
 * gateway by hand is left as it is. Undefined `names` (a setup from before spillway kept them)
 * unwraps every wrapped one.
 *
 * @example
 * unwrapServers(text, file, [['mcpServers']], ['files']);
 */
export function unwrapServers(
  text: string,
  file: string,
  containers: readonly JSONPath[],
  names: readonly string[] | undefined,
): string {
  let out = text;
  for (const { path, name, entry } of serversIn(text, file, containers)) {
    if (names !== undefined && !names.includes('all') && !names.includes(name)) continue;
    const next = unwrapServer(entry);
    if (next !== entry) out = setJsonc(out, [...path, name], next);
  }
  return out;
}
