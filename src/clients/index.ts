import { claudeSetup } from './claude-setup.js';
import { codexSetup } from './codex-setup.js';
import { geminiSetup } from './gemini-setup.js';
import type { FileEdit, SetupOptions } from './setup-plan.js';

/** The clients `spillway setup` and `spillway doctor` know, and what each needs. */
export const CLIENTS: Record<
  string,
  { name: string; edits: (options: SetupOptions) => FileEdit[]; notes: string[] }
> = {
  claude: {
    name: 'Claude Code',
    edits: claudeSetup,
    notes: [],
  },
  codex: {
    name: 'Codex',
    edits: codexSetup,
    notes: [
      "Codex runs commands in its sandbox: spillway's folder is made writable under workspace-write (unless config.toml has a [sandbox_workspace_write] table of its own: add the folder to its writable_roots); under read-only, spillway run cannot stash and prints outputs whole.",
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
export { applySetup, planSetup, setupStateDir, undoSetup } from './setup-files.js';
export type { FileEdit, SetupOptions } from './setup-plan.js';
export { codexHook, geminiHook } from './shell-hooks.js';
