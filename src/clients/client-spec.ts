import type { Check } from './client-checks.js';
import type { HookContext, HookInput } from './hook-io.js';
import type { FileEdit, SetupOptions } from './setup-plan.js';

/** A client's hook handler: its answer on standard output, or nothing to leave the result alone. */
export type HookHandler = (input: HookInput, ctx: HookContext) => Promise<object | undefined>;

/**
 * Everything spillway knows about one agent client, in one place: `spillway setup` and `--undo`
 * plan from `setup`, `spillway hook` runs `hook`, `spillway doctor` checks `setup` and
 * `probe`, the help texts print `setupHelp`, `hookHelp` and `limit`, and the tests install and
 * run the client from `headless`. Adding a client is one folder under `src/clients/` that
 * exports one of these as `spec`, and its key in `CLIENT_KEYS`.
 *
 * @example
 * const spec = await loadClient('codex');
 * planSetup((await spec.setup()).edits(options));
 */
export interface ClientSpec {
  /** What the user types: `spillway setup KEY`. */
  key: string;
  /** The client's own name. */
  name: string;
  /** Where the client cuts a shell command's output, and what it shows of it. */
  limit: string;
  /** The files setup changes and what each gets, for `spillway setup --help` (indented lines). */
  setupHelp: string;
  /** What the hook does, for `spillway hook --help` (indented lines). */
  hookHelp: string;
  /** What setup tells the user besides the files. */
  notes: readonly string[];
  /** Setup's knowledge of the client, loaded only by setup, undo and doctor (never by a hook). */
  setup(): Promise<ClientSetup>;
  /** The hook handler, loaded only when the hook runs (it runs after every shell command). */
  hook(): Promise<HookHandler>;
  /** A hook input for a small output: the hook must print nothing for it. */
  probe: HookInput;
  /** How the tests install the client and run it without a person. */
  headless: {
    package: string;
    version: string;
    bin: string;
    /** The environment a headless run needs (a fake key: the proxy forwards it). */
    env: Readonly<Record<string, string>>;
    /** The arguments that run one prompt to its end. */
    args(prompt: string): string[];
  };
}

/** How setup changes a client's files, and what doctor checks beyond them. */
export interface ClientSetup {
  /** The client's files as setup changes them (pure: undo and doctor plan from them too). */
  edits(options: SetupOptions): FileEdit[];
  /** Folders the client must find in place when it starts (a sandbox binds them). */
  folders?(env: NodeJS.ProcessEnv): string[];
  /**
   * The client's MCP servers that `--mcp` can name (not spillway's own): whether each already runs
   * through the gateway, and whether it is a stdio server (the gateway fronts only those).
   */
  mcpServers?(options: SetupOptions): { name: string; wrapped: boolean; stdio: boolean }[];
  /** What doctor checks beyond the files, the hook, the store and recall. */
  checks?(options: SetupOptions, context: { proxy?: string; cwd: string }): Promise<Check[]>;
  /** What setup tells the user about their shell or files that the edits cannot change. */
  warnings?(options: SetupOptions): string[];
}
