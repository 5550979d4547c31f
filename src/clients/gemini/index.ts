import type { ClientSpec } from '../client-spec.js';

/**
 * Gemini CLI: an AfterTool hook on run_shell_command stashes, where Gemini CLI shows only the head
 * and tail of an output, the whole of it and tells the model its recall id; spillway_expand
 * as an MCP server; with a proxy, `GOOGLE_GEMINI_BASE_URL` in `~/.gemini/.env`.
 *
 * @example
 * planSetup((await spec.setup()).edits(options));
 */
export const spec: ClientSpec = {
  key: 'gemini',
  name: 'Gemini CLI',
  limit: '40,000 characters (its first 8,000 and last 32,000)',
  setupHelp: `~/.gemini/settings.json: an AfterTool hook that, where Gemini CLI shows only the head
          and tail of an output, stashes the whole and tells the model its recall id; and
          the spillway MCP server`,
  hookHelp: `AfterTool on run_shell_command: when Gemini CLI will show only the head and tail of an
          output, stashes it and adds its size and recall id (never its text: Gemini CLI puts
          a hook's context outside its untrusted frame)`,
  notes: [
    'Headless runs (gemini -p) in a folder you never trusted need --skip-trust (or GEMINI_CLI_TRUST_WORKSPACE=true).',
  ],
  setup: async () => {
    const [setup, checks] = await Promise.all([import('./setup.js'), import('./checks.js')]);
    return {
      edits: setup.geminiSetup,
      mcpServers: setup.geminiServerNames,
      warnings: setup.geminiWarnings,
      checks: async (options, { proxy, cwd }) =>
        proxy ? [checks.checkGeminiRouting(options, proxy, cwd)] : [],
    };
  },
  hook: () => import('./hook.js').then((m) => m.geminiHook),
  probe: {
    hook_event_name: 'AfterTool',
    tool_name: 'run_shell_command',
    tool_input: { command: 'true' },
    tool_response: { llmContent: 'ok', returnDisplay: 'ok' },
  },
  headless: {
    package: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
    // Headless runs in a folder the user never trusted interactively.
    env: { GEMINI_API_KEY: 'AIza-test', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    args: (prompt) => ['-p', prompt],
  },
};
