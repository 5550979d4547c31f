import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpillwayError } from '../../errors.js';
import { block, COMMENTED, linesInsideStrings, readToml, tomlString, withoutBlocks } from '../config-text.js';
import { wrapped } from '../mcp-wrap.js';
import type { SetupOptions } from '../setup-plan.js';
import { codexDir } from './paths.js';

/**
 * Codex's stdio MCP servers in config.toml, for `--mcp` (a server setup wrapped counts as not
 * wrapped: its own lines are still there, switched off).
 *
 * @example
 * codexServerNames(options); // [{ name: 'files', wrapped: false }]
 */
export function codexServerNames(
  options: SetupOptions,
): { name: string; wrapped: boolean; stdio: boolean }[] {
  const path = join(codexDir(options), 'config.toml');
  if (!existsSync(path)) return [];
  const servers = (readToml(withoutBlocks(readFileSync(path, 'utf8')), path).mcp_servers ?? {}) as Record<
    string,
    Record<string, unknown>
  >;
  return Object.entries(servers)
    .filter(([name]) => name !== 'spillway')
    .map(([name, server]) => ({
      name,
      stdio: typeof server.command === 'string',
      wrapped: wrapped(server) !== undefined,
    }));
}

/**
 * config.toml with the chosen `[mcp_servers.NAME]` tables run through `spillway gateway`: in
 * each, the user's `command` and `args` lines are switched off (commented, as undo finds them)
 * and a marked block with the wrapped ones takes their place; everything else in the table
 * stays. Servers without a command (HTTP ones) are left as they are.
 */
export function wrapCodexServers(
  text: string,
  parsed: Record<string, unknown>,
  options: SetupOptions,
  file: string,
): string {
  const servers = (parsed.mcp_servers ?? {}) as Record<string, Record<string, unknown>>;
  const names = Object.keys(servers).filter((n) => n !== 'spillway');
  const chosen = options.mcp?.includes('all') ? names : (options.mcp ?? []);
  const unknown = chosen.filter((n) => !names.includes(n));
  if (unknown.length > 0)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `no MCP server named ${unknown.map((n) => `"${n}"`).join(', ')} in ${file}; it has: ${names.join(', ') || '(none)'}`,
    );
  let lines = text.split('\n');
  for (const name of chosen) {
    const server = servers[name] as Record<string, unknown>;
    if (typeof server.command !== 'string') continue;
    const args = Array.isArray(server.args) ? (server.args as string[]) : [];
    const text = linesInsideStrings(lines);
    const header = lines.findIndex((l, i) => !text[i] && tableName(l) === `mcp_servers.${name}`);
    if (header < 0)
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `${file}: [mcp_servers.${name}] is written in a form setup does not edit; wrap it by hand (docs/gateway.md)`,
      );
    let end = lines.findIndex((l, i) => i > header && !text[i] && /^\s*\[/.test(l));
    if (end < 0) end = lines.length;
    // Blank lines that end the table stay after setup's block (the file keeps its last newline).
    while (end > header + 1 && lines[end - 1] === '') end--;
    const table = lines.slice(header + 1, end);
    const switchedOff = switchOff(table, ['command', 'args']);
    const wrappedLines = block('codex', [
      `command = ${tomlString(options.spillway.command)}`,
      `args = [${[...options.spillway.args, 'gateway', '--no-expand', '--', server.command, ...args].map(tomlString).join(', ')}]`,
    ]).replace(/\n$/, '');
    lines = [...lines.slice(0, header + 1), ...switchedOff, wrappedLines, ...lines.slice(end)];
  }
  return lines.join('\n');
}

/** The name of the table a line opens (`[mcp_servers.files]`, quoted keys unquoted), if it opens one. */
function tableName(line: string): string | undefined {
  const m = /^\s*\[\s*([^[\]]+?)\s*\]\s*(?:#.*)?$/.exec(line);
  return m ? (m[1] as string).replace(/"([^"]*)"/g, '$1').replace(/\s*\.\s*/g, '.') : undefined;
}

/** The table's lines with those that set `keys` commented out (a multi-line array whole). */
function switchOff(table: readonly string[], keys: readonly string[]): string[] {
  const out: string[] = [];
  const text = linesInsideStrings(table);
  let open = 0;
  for (const [i, line] of table.entries()) {
    const starts = !text[i] && keys.some((k) => new RegExp(`^\\s*${k}\\s*=`).test(line));
    if (starts || open > 0) {
      out.push(`${COMMENTED}${line}`);
      open += bracketDepth(line);
      if (starts && open < 0) open = 0;
    } else out.push(line);
  }
  return out;
}

/** How many more [ than ] a TOML line opens, outside its strings and comment. */
function bracketDepth(line: string): number {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') break;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
  }
  return depth;
}
