import { type KeptUpstreams, parseKeptUpstreams, type UpstreamApi, upstreamsFile } from '../store/index.js';
import { CLIENT_KEYS } from './client-keys.js';
import type { SpillwayCommand } from './spillway-command.js';

/** What `spillway setup CLIENT` is given. */
export interface SetupOptions {
  /** The user's home folder (the clients' configuration lives under it). */
  home: string;
  /** The environment, its HOME the same as `home`. */
  env: NodeJS.ProcessEnv;
  spillway: SpillwayCommand;
  /** The proxy to send the client's model requests through; none leaves the base URL alone. */
  proxy?: string;
  /** The client's MCP servers to run through `spillway gateway` (`all` for every one). */
  mcp?: readonly string[];
  /** The endpoints an earlier setup kept (upstreams.json): undo points the client back at them. */
  kept?: KeptUpstreams;
}

/**
 * One file setup changes: `add` puts spillway's settings into the file's text (replacing any
 * earlier ones), `remove` takes them out again and leaves the rest as it is. Both are pure.
 */
export interface FileEdit {
  path: string;
  /** What the file is for, for --print and doctor. */
  purpose: string;
  /**
   * The client's own config file, which the client's sandbox keeps read-only: `add` writes
   * SEAL_PLACEHOLDER (setup-seal.ts) into it, where setup keeps the digest of its manifest, and
   * `remove` takes it out with the rest. One a client.
   */
  holdsSeal?: boolean;
  /** `planned(path)` is the text setup writes to another of the client's files (edited first). */
  add(text: string, planned: (path: string) => string): string;
  /**
   * `before` is the file as it was before setup (from setup's backup; '' when it did not exist),
   * when known: a setting setup added where the user had none can then be told from theirs.
   */
  remove(text: string, before?: string): string;
}

/** The command lines spillway writes into a client's hooks end like this; setup finds its own by it. */
export const OWN_HOOK = new RegExp(`(^|[\\s/'])(spillway|cli\\.js)'? hook (${CLIENT_KEYS.join('|')})$`);

/** Whether a hook group (Claude Code's, Codex's and Gemini CLI's share the shape) is spillway's. */
export function isOwnHookGroup(group: unknown): boolean {
  const hooks = (group as { hooks?: unknown })?.hooks;
  return (
    Array.isArray(hooks) &&
    hooks.some(
      (h) =>
        typeof (h as { command?: unknown })?.command === 'string' &&
        OWN_HOOK.test((h as { command: string }).command),
    )
  );
}

/**
 * A variable of the user's shell (setup runs in it, as the client does), when set.
 *
 * @example
 * exported(options, 'ANTHROPIC_BASE_URL'); // 'https://gateway.corp.test'
 */
export function exported(options: Pick<SetupOptions, 'env'>, name: string): string | undefined {
  return options.env[name]?.trim() || undefined;
}

/**
 * spillway's `upstreams.json` keeping the endpoints a client was pointed at (`previous[api]` reads
 * one from the client's files as they are before setup), so the proxy forwards there instead of
 * the provider's public API; undo takes them out (and the client's edit points the client back).
 * Nothing is written when there is nothing to keep.
 *
 * @example
 * keptUpstreamEdit(options, { anthropic: (planned) => baseUrlIn(planned(settings)) });
 */
export function keptUpstreamEdit(
  options: SetupOptions,
  previous: Partial<Record<UpstreamApi, (planned: (path: string) => string) => string | undefined>>,
): FileEdit {
  const path = upstreamsFile(options.env);
  const apis = Object.keys(previous) as UpstreamApi[];
  const json = (kept: KeptUpstreams) =>
    Object.keys(kept).length ? `${JSON.stringify(kept, null, 2)}\n` : '';
  return {
    path,
    purpose: `the ${apis.join(' and ')} endpoint you had, kept as the proxy's upstream`,
    remove: (text) => {
      const kept: KeptUpstreams = { ...parseKeptUpstreams(text, path) };
      for (const api of apis) delete kept[api];
      return json(kept);
    },
    add: (text, planned) => {
      const kept: KeptUpstreams = { ...parseKeptUpstreams(text, path) };
      let changed = false;
      for (const api of apis) {
        const before = options.proxy === undefined ? undefined : previous[api]?.(planned)?.trim();
        // Only an http(s) URL can be an upstream (the client would fail on anything else too).
        if (!before || !/^https?:\/\//.test(before) || !URL.canParse(before)) continue;
        if (before.replace(/\/+$/, '') === options.proxy || kept[api] !== undefined) continue;
        kept[api] = before;
        changed = true;
      }
      return changed ? json(kept) : text;
    },
  };
}
