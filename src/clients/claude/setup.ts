import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonc, setJsonc, withoutEmpty } from '../config-text.js';
import { serverNames, unwrapServers, wrapServers } from '../mcp-wrap.js';
import {
  exported,
  type FileEdit,
  isOwnHookGroup,
  keptUpstreamEdit,
  type SetupOptions,
} from '../setup-plan.js';
import { SEAL_PLACEHOLDER } from '../setup-seal.js';
import { spillwayShell } from '../spillway-command.js';
import { claudeDir } from './hook.js';

/**
 * Where Claude Code keeps MCP servers in `~/.claude.json`: the user's (`mcpServers`) and each
 * project's local ones (`projects.<path>.mcpServers`, where `claude mcp add` puts them).
 *
 * @example
 * claudeServerLists('{"projects":{"/srv/app":{"mcpServers":{}}}}', f); // [['mcpServers'], ['projects', '/srv/app', 'mcpServers']]
 */
export function claudeServerLists(text: string, file: string): string[][] {
  const projects = readJsonc(text, file).projects;
  const paths = projects && typeof projects === 'object' ? Object.keys(projects) : [];
  return [['mcpServers'], ...paths.map((p) => ['projects', p, 'mcpServers'])];
}

/** The settings variable that holds setup's seal. */
const SEAL_VARIABLE = 'SPILLWAY_SETUP_SEAL';

/** The ANTHROPIC_BASE_URL a settings text sets, if any. */
function baseUrlIn(text: string, file: string): string | undefined {
  const env = (readJsonc(text, file).env ?? {}) as Record<string, unknown>;
  return typeof env.ANTHROPIC_BASE_URL === 'string' ? env.ANTHROPIC_BASE_URL : undefined;
}

/** A hook array with spillway's groups taken out. */
const othersOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value.filter((g) => !isOwnHookGroup(g)) : [];

/**
 * Claude Code's files: in `settings.json`, the PostToolUse hook on Bash (Claude Code saves an
 * output over 30,000 characters and sends a 2 KB preview; the hook sends a collapse of the saved
 * file instead) and, with a proxy, `env.ANTHROPIC_BASE_URL`; in `~/.claude.json`, spillway as a
 * user MCP server for `spillway_expand`, always loaded (never deferred behind ToolSearch).
 *
 * @example
 * const edits = claudeSetup({ home: '/home/u', env: {}, spillway, proxy: 'http://127.0.0.1:4747' });
 */
export function claudeSetup(options: SetupOptions): FileEdit[] {
  const dir = claudeDir({ ...options.env, HOME: options.home });
  const settings = join(dir, 'settings.json');
  const state = claudeStatePath(options);
  const hook = {
    matcher: 'Bash',
    hooks: [{ type: 'command', command: spillwayShell(options.spillway, ['hook', 'claude']), timeout: 120 }],
  };
  const removeSettings = (text: string, before?: string) => {
    const value = readJsonc(text, settings);
    const hooks = (value.hooks ?? {}) as Record<string, unknown>;
    let out = text;
    if (Array.isArray(hooks.PostToolUse)) {
      const others = othersOf(hooks.PostToolUse);
      out = setJsonc(out, ['hooks', 'PostToolUse'], others.length ? others : undefined);
    }
    const env = (value.env ?? {}) as Record<string, unknown>;
    // The gateway the file had comes back; with none (one exported in the shell stays there),
    // the variable goes.
    if (options.proxy !== undefined && env.ANTHROPIC_BASE_URL === options.proxy) {
      const had = before === undefined ? options.kept?.anthropic : baseUrlIn(before, settings);
      out = setJsonc(out, ['env', 'ANTHROPIC_BASE_URL'], had);
    }
    if (env[SEAL_VARIABLE] !== undefined) out = setJsonc(out, ['env', SEAL_VARIABLE], undefined);
    return withoutEmpty(out, [['hooks'], ['env']]);
  };
  return [
    keptUpstreamEdit(options, {
      // settings.json's env wins over the shell's in Claude Code; with none there, the gateway
      // exported in the shell setup runs in is the one Claude Code used.
      anthropic: (planned) =>
        baseUrlIn(planned(settings), settings) ?? exported(options, 'ANTHROPIC_BASE_URL'),
    }),
    // Claude Code's sandbox never lets a command write its settings files: setup's seal lives
    // here, in a variable (the file is strict JSON, no comments).
    {
      path: settings,
      holdsSeal: true,
      purpose: `PostToolUse hook on Bash${options.proxy ? ', ANTHROPIC_BASE_URL' : ''}`,
      remove: removeSettings,
      add: (text) => {
        const value = readJsonc(text, settings);
        const post = othersOf(((value.hooks ?? {}) as Record<string, unknown>).PostToolUse);
        let out = setJsonc(text, ['hooks', 'PostToolUse'], [...post, hook]);
        if (options.proxy) out = setJsonc(out, ['env', 'ANTHROPIC_BASE_URL'], options.proxy);
        return setJsonc(out, ['env', SEAL_VARIABLE], SEAL_PLACEHOLDER);
      },
    },
    {
      path: state,
      purpose: `spillway_expand as an MCP server${options.mcp?.length ? `; MCP servers through spillway gateway: ${options.mcp.join(', ')}` : ''}`,
      remove: (text) => {
        const value = readJsonc(text, state);
        const out = (value.mcpServers as Record<string, unknown> | undefined)?.spillway
          ? setJsonc(text, ['mcpServers', 'spillway'], undefined)
          : text;
        return withoutEmpty(unwrapServers(out, state, claudeServerLists(out, state), options.mcp), [
          ['mcpServers'],
        ]);
      },
      add: (text) => {
        const out = setJsonc(text, ['mcpServers', 'spillway'], {
          type: 'stdio',
          command: options.spillway.command,
          args: [...options.spillway.args, 'mcp'],
          env: {},
          alwaysLoad: true,
        });
        return options.mcp?.length
          ? wrapServers(out, state, claudeServerLists(out, state), options.mcp, options.spillway)
          : out;
      },
    },
  ];
}

/** `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`): where Claude Code keeps MCP servers. */
function claudeStatePath(options: Pick<SetupOptions, 'home' | 'env'>): string {
  const dir = claudeDir({ ...options.env, HOME: options.home });
  return options.env.CLAUDE_CONFIG_DIR?.trim()
    ? join(dir, '.claude.json')
    : join(options.home, '.claude.json');
}

/**
 * Claude Code's stdio MCP servers (the user's and each project's local ones), for `--mcp`.
 *
 * @example
 * claudeServerNames(options); // [{ name: 'files', wrapped: false }]
 */
export function claudeServerNames(
  options: SetupOptions,
): { name: string; wrapped: boolean; stdio: boolean }[] {
  const path = claudeStatePath(options);
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return serverNames(text, path, claudeServerLists(text, path));
}
