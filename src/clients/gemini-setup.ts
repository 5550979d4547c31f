import { join } from 'node:path';
import { block, readJsonc, setJsonc, withoutBlocks } from './config-text.js';
import { rewrapServers } from './mcp-wrap.js';
import { type FileEdit, isOwnHookGroup, type SetupOptions } from './setup-plan.js';
import { spillwayShell } from './spillway-command.js';

/**
 * Gemini CLI's files: in `settings.json`, the BeforeTool hook on `run_shell_command` that runs
 * each shell command through `spillway run` (Gemini CLI keeps only the first 8,000 and last
 * 32,000 characters of a long output; its AfterTool hook cannot replace the output), spillway
 * as an MCP server for `spillway_expand` and, with a proxy, API-key sign-in; in `.env`, with a
 * proxy, `GOOGLE_GEMINI_BASE_URL` (Gemini CLI reads `~/.gemini/.env`).
 *
 * @example
 * const edits = geminiSetup({ home: '/home/u', env: {}, spillway, proxy: 'http://127.0.0.1:4747' });
 */
export function geminiSetup(options: SetupOptions): FileEdit[] {
  const dir = join(options.home, '.gemini');
  const settings = join(dir, 'settings.json');
  const hook = {
    matcher: 'run_shell_command',
    hooks: [
      { type: 'command', name: 'spillway', command: spillwayShell(options.spillway, ['hook', 'gemini']) },
    ],
  };
  const beforeTool = (text: string) =>
    ((readJsonc(text, settings).hooks ?? {}) as Record<string, unknown>).BeforeTool as unknown;
  const edits: FileEdit[] = [
    {
      path: settings,
      purpose: `BeforeTool hook on run_shell_command, MCP server${options.proxy ? ', API-key sign-in' : ''}${options.mcp?.length ? `; MCP servers through spillway gateway: ${options.mcp.join(', ')}` : ''}`,
      remove: (text) => {
        let out = text;
        const before = beforeTool(text);
        if (Array.isArray(before) && before.some(isOwnHookGroup)) {
          const others = before.filter((g) => !isOwnHookGroup(g));
          out = setJsonc(out, ['hooks', 'BeforeTool'], others.length ? others : undefined);
        }
        if ((readJsonc(out, settings).mcpServers as Record<string, unknown> | undefined)?.spillway)
          out = setJsonc(out, ['mcpServers', 'spillway'], undefined);
        return rewrapServers(out, settings, [['mcpServers']], undefined, options.spillway);
      },
      add: (text) => {
        const value = readJsonc(text, settings);
        const before = beforeTool(text);
        const others = Array.isArray(before) ? before.filter((g) => !isOwnHookGroup(g)) : [];
        let out = setJsonc(text, ['hooks', 'BeforeTool'], [...others, hook]);
        out = setJsonc(out, ['mcpServers', 'spillway'], {
          command: options.spillway.command,
          args: [...options.spillway.args, 'mcp'],
          trust: true,
        });
        if (options.mcp?.length)
          out = rewrapServers(out, settings, [['mcpServers']], options.mcp, options.spillway);
        const auth = ((value.security as Record<string, unknown> | undefined)?.auth ?? {}) as Record<
          string,
          unknown
        >;
        // The proxy forwards an API key; a Google sign-in does not go through a base URL.
        if (options.proxy && auth.selectedType === undefined)
          out = setJsonc(out, ['security', 'auth', 'selectedType'], 'gemini-api-key');
        return out;
      },
    },
  ];
  if (options.proxy)
    edits.push({
      path: join(dir, '.env'),
      purpose: 'GOOGLE_GEMINI_BASE_URL',
      remove: (text) => withoutBlocks(text),
      add: (text) => {
        const base = withoutBlocks(text);
        const sep = base === '' || base.endsWith('\n') ? '' : '\n';
        return `${base}${sep}${block('gemini', [`GOOGLE_GEMINI_BASE_URL=${options.proxy}`])}`;
      },
    });
  return edits;
}
