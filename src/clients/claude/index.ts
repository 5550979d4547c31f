import type { ClientSpec } from '../client-spec.js';

/**
 * Claude Code: a PostToolUse hook on Bash sends the model a collapse of the output Claude Code
 * saved (past 30,000 characters it sends only a 2 KB preview); spillway_expand as a user MCP
 * server; with a proxy, `ANTHROPIC_BASE_URL`.
 *
 * @example
 * planSetup((await spec.setup()).edits(options));
 */
export const spec: ClientSpec = {
  key: 'claude',
  name: 'Claude Code',
  limit: '30,000 characters, then a 2 KB preview and a file',
  setupHelp: `~/.claude/settings.json: a PostToolUse hook on Bash that sends the model a collapse
          of the output Claude Code saved; ~/.claude.json: the spillway MCP server`,
  hookHelp: `PostToolUse on Bash: when Claude Code saved a long output to a file and sent only a
          preview, stashes that file and sends the model a collapse of it instead`,
  notes: [],
  setup: async () => {
    const [setup, checks] = await Promise.all([import('./setup.js'), import('./checks.js')]);
    return {
      edits: setup.claudeSetup,
      mcpServers: setup.claudeServerNames,
      checks: async (options, { proxy }) => (proxy ? [checks.checkClaudeEndpoint(options, proxy)] : []),
    };
  },
  hook: () => import('./hook.js').then((m) => m.claudeHook),
  probe: {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'true' },
    tool_response: { stdout: 'ok', stderr: '' },
  },
  headless: {
    package: '@anthropic-ai/claude-code',
    version: '2.1.332',
    bin: 'claude',
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    args: (prompt) => ['-p', prompt],
  },
};
