import { claudeSetup } from './claude-setup.js';
import { codexSpoolDir } from './codex-capture.js';
import { codexSetup } from './codex-setup.js';
import { geminiSetup } from './gemini-setup.js';
import type { FileEdit, SetupOptions } from './setup-plan.js';

/** The clients `spillway setup` and `spillway doctor` know, and what each needs. */
export const CLIENTS: Record<
  string,
  {
    name: string;
    edits: (options: SetupOptions) => FileEdit[];
    notes: string[];
    /** Folders the client must find in place when it starts (a sandbox binds them). */
    folders?: (env: NodeJS.ProcessEnv) => string[];
  }
> = {
  claude: {
    name: 'Claude Code',
    edits: claudeSetup,
    notes: [],
  },
  codex: {
    name: 'Codex',
    edits: codexSetup,
    folders: (env) => [codexSpoolDir(env)],
    notes: [
      "Codex runs each command as the model wrote it, under your rules, approvals, sandbox and shell. Outside its sandbox, bash keeps the whole output (BASH_ENV) and the hook adds a collapse of it beside Codex's cut; in the sandbox, on a terminal, in another shell or with a [shell_environment_policy] of your own, Codex's own cut stands. spillway doctor codex says which applies here.",
    ],
  },
  gemini: {
    name: 'Gemini CLI',
    edits: geminiSetup,
    notes: [
      'Headless runs (gemini -p) in a folder you never trusted need --skip-trust (or GEMINI_CLI_TRUST_WORKSPACE=true).',
    ],
  },
};

export { claudeHook } from './claude.js';
export { codexHook } from './codex.js';
export { geminiHook } from './gemini.js';
export { applySetup, planSetup, setupStateDir, undoSetup } from './setup-files.js';
export type { FileEdit, SetupOptions } from './setup-plan.js';
