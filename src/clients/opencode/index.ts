import type { ClientSpec } from '../client-spec.js';

/**
 * opencode: a plugin adds, beside a bash output opencode cut (it shows the last 2,000 lines or
 * 50 KB and saves the whole), the lines that matter from the whole and the recall id;
 * spillway_expand as a local MCP server; with a proxy, the anthropic and openai base URLs.
 *
 * @example
 * planSetup((await spec.setup()).edits(options));
 */
export const spec: ClientSpec = {
  key: 'opencode',
  name: 'opencode',
  limit: '2,000 lines or 50 KB (its last ones), the whole saved to a file',
  setupHelp: `~/.config/opencode/plugin/spillway.js: a plugin that, where opencode shows only the
          last lines of a bash output, adds the lines that matter from the whole and the recall
          id; ~/.config/opencode/opencode.json: the spillway MCP server`,
  hookHelp: `after a bash call opencode cut (its plugin calls the hook): stashes the whole output
          opencode saved and adds the lines that matter from it, and the recall id`,
  notes: [],
  setup: () => import('./setup.js').then((m) => ({ edits: m.opencodeSetup })),
  hook: () => import('./hook.js').then((m) => m.opencodeHook),
  probe: { tool: 'bash', callID: 'probe', args: { command: 'true' }, output: 'ok' },
  headless: {
    package: 'opencode-ai',
    version: '1.18.33',
    bin: 'opencode',
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-test',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
    },
    args: (prompt) => ['run', prompt],
  },
};
