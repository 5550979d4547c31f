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
      'Codex runs the hook in its sandbox: with the workspace-write or read-only sandbox, spillway run cannot stash to ~/.spillway and prints outputs whole (Codex then cuts them); add that folder to [sandbox_workspace_write] writable_roots.',
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
