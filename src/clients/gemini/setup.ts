import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  appendBlock,
  dotenvValue,
  keepingForm,
  readJsonc,
  setJsonc,
  withoutBlocks,
  withoutEmpty,
} from '../config-text.js';
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

/**
 * Gemini CLI's files: in `settings.json`, the AfterTool hook on `run_shell_command` that, for an
 * output Gemini CLI will show only the head and tail of (past 40,000 characters), stashes it and
 * adds its recall id (the hook sees the whole output; the command is never touched), spillway
 * as an MCP server for `spillway_expand` and, with a proxy, API-key sign-in; in `.env`, with a
 * proxy, `GOOGLE_GEMINI_BASE_URL` (Gemini CLI reads `~/.gemini/.env`).
 *
 * @example
 * const edits = geminiSetup({ home: '/home/u', env: {}, spillway, proxy: 'http://127.0.0.1:4747' });
 */
export function geminiSetup(options: SetupOptions): FileEdit[] {
  const dir = dirname(geminiSettingsPath(options));
  const envFile = join(dir, '.env');
  const edits: FileEdit[] = [
    keptUpstreamEdit(options, { gemini: (planned) => geminiEndpoint(options, envFile, planned) }),
    settingsEdit(options),
  ];
  if (options.proxy)
    edits.push({
      path: envFile,
      purpose: 'GOOGLE_GEMINI_BASE_URL',
      remove: keepingForm(withoutBlocks),
      add: keepingForm((text: string) => {
        return appendBlock(withoutBlocks(text), 'gemini', [`GOOGLE_GEMINI_BASE_URL=${options.proxy}`]);
      }),
    });
  return edits;
}

/**
 * The endpoint Gemini CLI was sent to, as its loader finds it for the home (Gemini CLI's
 * settings.ts): the shell's variable wins over any `.env`; of the files, `~/.gemini/.env` (read
 * without setup's block), else `~/.env`. A project's own `.env` is doctor's to check, in its folder.
 */
function geminiEndpoint(
  options: SetupOptions,
  envFile: string,
  planned: (path: string) => string,
): string | undefined {
  const name = 'GOOGLE_GEMINI_BASE_URL';
  const shell = exported(options, name);
  if (shell !== undefined) return shell;
  if (existsSync(envFile)) return dotenvValue(withoutBlocks(planned(envFile)), name);
  const homeEnv = join(options.home, '.env');
  return existsSync(homeEnv) ? dotenvValue(readFileSync(homeEnv, 'utf8'), name) : undefined;
}

/**
 * Notes for a user whose shell exports GOOGLE_GEMINI_BASE_URL: Gemini CLI reads it over the
 * `.env` setup writes, so its requests skip the proxy until it goes.
 *
 * @example
 * geminiWarnings({ ...options, env: { GOOGLE_GEMINI_BASE_URL: 'https://gw.test' } }); // ['GOOGLE_GEMINI_BASE_URL is exported …']
 */
export function geminiWarnings(options: SetupOptions): string[] {
  const shell = exported(options, 'GOOGLE_GEMINI_BASE_URL');
  if (!options.proxy || shell === undefined || shell.replace(/\/+$/, '') === options.proxy) return [];
  return [
    `GOOGLE_GEMINI_BASE_URL is exported in this shell (${shell}): Gemini CLI reads it over ~/.gemini/.env, so its requests skip the proxy until you remove the export from your shell profile (the proxy forwards to ${shell} once it is gone)`,
  ];
}

/**
 * `settings.json`: the hook, the MCP server and, with a proxy, API-key sign-in. Gemini CLI's own
 * settings (comments allowed): setup's seal lives here, on a line of its own.
 */
function settingsEdit(options: SetupOptions): FileEdit {
  const settings = geminiSettingsPath(options);
  const hook = {
    matcher: 'run_shell_command',
    hooks: [
      { type: 'command', name: 'spillway', command: spillwayShell(options.spillway, ['hook', 'gemini']) },
    ],
  };
  const signInOf = (text: string) =>
    (
      ((readJsonc(text, settings).security as Record<string, unknown> | undefined)?.auth ?? {}) as Record<
        string,
        unknown
      >
    ).selectedType;
  const hookGroups = (text: string, event: string) =>
    ((readJsonc(text, settings).hooks ?? {}) as Record<string, unknown>)[event] as unknown;
  // An earlier spillway put a BeforeTool hook here (the command rewrite): taken out too.
  const withoutOwnHooks = (text: string) => {
    let out = text;
    for (const event of ['BeforeTool', 'AfterTool']) {
      const list = hookGroups(out, event);
      if (!Array.isArray(list) || !list.some(isOwnHookGroup)) continue;
      const others = list.filter((g) => !isOwnHookGroup(g));
      out = setJsonc(out, ['hooks', event], others.length ? others : undefined);
    }
    return out;
  };
  return {
    path: settings,
    holdsSeal: true,
    purpose: `AfterTool hook on run_shell_command, MCP server${options.proxy ? ', API-key sign-in' : ''}${options.mcp?.length ? `; MCP servers through spillway gateway: ${options.mcp.join(', ')}` : ''}`,
    remove: (text, before) => {
      let out = withoutOwnHooks(withoutSealLine(text));
      if ((readJsonc(out, settings).mcpServers as Record<string, unknown> | undefined)?.spillway)
        out = setJsonc(out, ['mcpServers', 'spillway'], undefined);
      // The sign-in setup chose where the user had none (known from the file before setup).
      if (
        before !== undefined &&
        options.proxy !== undefined &&
        signInOf(before) === undefined &&
        signInOf(out) === 'gemini-api-key'
      )
        out = setJsonc(out, ['security', 'auth', 'selectedType'], undefined);
      return withoutEmpty(unwrapServers(out, settings, [['mcpServers']], options.mcp), [
        ['security', 'auth'],
        ['security'],
        ['hooks'],
        ['mcpServers'],
      ]);
    },
    add: (plain) => {
      const text = withoutSealLine(plain);
      const value = readJsonc(text, settings);
      const base = withoutOwnHooks(text);
      const after = hookGroups(base, 'AfterTool');
      let out = setJsonc(base, ['hooks', 'AfterTool'], [...(Array.isArray(after) ? after : []), hook]);
      out = setJsonc(out, ['mcpServers', 'spillway'], {
        command: options.spillway.command,
        args: [...options.spillway.args, 'mcp'],
        trust: true,
      });
      if (options.mcp?.length)
        out = wrapServers(out, settings, [['mcpServers']], options.mcp, options.spillway);
      const auth = ((value.security as Record<string, unknown> | undefined)?.auth ?? {}) as Record<
        string,
        unknown
      >;
      // The proxy forwards an API key; a Google sign-in does not go through a base URL.
      if (options.proxy && auth.selectedType === undefined)
        out = setJsonc(out, ['security', 'auth', 'selectedType'], 'gemini-api-key');
      const eol = out.includes('\r\n') ? '\r\n' : '\n';
      return `${out}${out === '' || out.endsWith('\n') ? '' : eol}${SEAL_LINE}${eol}`;
    },
  };
}

/** The line setup's seal is kept on, last in Gemini CLI's settings. */
const SEAL_LINE = `// spillway setup: undo checks its backups against this: ${SEAL_PLACEHOLDER}`;
const SEAL_LINE_PATTERN =
  /(^|\n)\/\/ spillway setup: undo checks its backups against this: spillway-seal:[0-9a-f]{64}\r?\n?$/;

/** The settings text without setup's seal line. */
function withoutSealLine(text: string): string {
  return text.replace(SEAL_LINE_PATTERN, (_m, lead: string) => lead);
}

const geminiSettingsPath = (options: Pick<SetupOptions, 'home'>) =>
  join(options.home, '.gemini', 'settings.json');

/**
 * Gemini CLI's stdio MCP servers in its user settings, for `--mcp`.
 *
 * @example
 * geminiServerNames(options); // [{ name: 'files', wrapped: false }]
 */
export function geminiServerNames(
  options: SetupOptions,
): { name: string; wrapped: boolean; stdio: boolean }[] {
  const path = geminiSettingsPath(options);
  return existsSync(path) ? serverNames(readFileSync(path, 'utf8'), path, [['mcpServers']]) : [];
}
