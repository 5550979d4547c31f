import type { ClientSpec } from '../client-spec.js';

/**
 * Codex: bash keeps each shell command's whole output (BASH_ENV, outside Codex's sandbox) and a
 * PostToolUse hook stashes it and tells the model its recall id (spillway's own words only: Codex
 * makes a hook's context a developer message); spillway_expand as an MCP server;
 * with a proxy, a model provider.
 *
 * @example
 * planSetup((await spec.setup()).edits(options));
 */
export const spec: ClientSpec = {
  key: 'codex',
  name: 'Codex',
  limit: 'about 10,000 tokens (its head and tail)',
  setupHelp: `~/.codex/spillway/capture.bash: BASH_ENV that keeps each shell command's whole output
          in a spool (where Codex runs commands in bash); ~/.codex/hooks.json: a PostToolUse hook that,
          where Codex cut the output, stashes the whole and tells the model its recall id; ~/.codex/config.toml: the hook's trust entry, BASH_ENV
          and the spillway MCP server`,
  hookHelp: `PostToolUse on Bash: when Codex cut an output and its whole was captured (setup's
          BASH_ENV capture), stashes it and adds, beside Codex's cut, its size and recall id (never its text:
          Codex makes a hook's context a developer message)`,
  notes: [
    "Codex runs each command as the model wrote it, under your rules, approvals, sandbox and shell. Outside its sandbox, bash keeps the whole output (BASH_ENV) and the hook stashes it and tells the model its recall id beside Codex's cut; in the sandbox, on a terminal, in another shell or with a [shell_environment_policy] of your own, Codex's own cut stands. spillway doctor codex says which applies here.",
  ],
  setup: async () => {
    const [setup, servers, checks, capture] = await Promise.all([
      import('./setup.js'),
      import('./mcp-servers.js'),
      import('./checks.js'),
      import('./capture.js'),
    ]);
    return {
      edits: setup.codexSetup,
      mcpServers: servers.codexServerNames,
      checks: (options) => checks.checkCodexCapture(options),
      folders: (env) => [capture.codexSpoolDir(env)],
    };
  },
  hook: () => import('./hook.js').then((m) => m.codexHook),
  probe: {
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    session_id: 'spillway-doctor',
    tool_use_id: 'probe',
    tool_input: { command: 'true' },
    tool_response: 'ok',
  },
  headless: {
    package: '@openai/codex',
    version: '0.171.0',
    bin: 'codex',
    env: { OPENAI_API_KEY: 'sk-test' },
    args: (prompt) => ['exec', '--skip-git-repo-check', prompt],
  },
};
