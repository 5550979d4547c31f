import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { SpillwayError } from '../../errors.js';
import {
  appendBlock,
  block,
  COMMENTED,
  keepingForm,
  readJsonc,
  readToml,
  setJsonc,
  tomlString,
  withoutBlocks,
  withoutEmpty,
} from '../config-text.js';
import { type FileEdit, isOwnHookGroup, keptUpstreamEdit, type SetupOptions } from '../setup-plan.js';
import { SEAL_PLACEHOLDER } from '../setup-seal.js';
import { spillwayShell } from '../spillway-command.js';
import { codexCaptureScript, codexCaptureScriptPath, codexSpoolDir } from './capture.js';
import { wrapCodexServers } from './mcp-servers.js';
import { codexDir } from './paths.js';
import { codexShell } from './shell.js';

export { codexDir } from './paths.js';

/** JSON with object keys sorted at every depth, compact: what Codex hashes a hook by. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * The hash Codex trusts a hook by (codex-rs/hooks: sha256 over the compact, key-sorted JSON of
 * the hook's identity, Codex's defaults filled in: timeout 600, async false). Codex runs a hook
 * from `hooks.json` only when `[hooks.state."KEY"] trusted_hash` in config.toml matches it.
 *
 * @example
 * codexTrustHash('Bash', '/usr/bin/node /opt/sw/cli.js hook codex'); // 'sha256:…'
 */
export function codexTrustHash(matcher: string, command: string): string {
  const identity = {
    event_name: 'post_tool_use',
    matcher,
    hooks: [{ type: 'command', command, timeout: 600, async: false }],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/**
 * Whether the capture can be installed: on Linux (the capture reads /proc and needs GNU tee's
 * `-p`: go on when a reader goes away), where Codex runs commands in bash. In another shell
 * (a zsh login user's) `BASH_ENV` would only reach the bash a command starts, where it has
 * nothing to do, so setup leaves it out. Elsewhere Codex's own cut stands.
 */
export function codexCaptureSupported(): boolean {
  return process.platform === 'linux' && codexShell().shell === 'bash';
}

/** The tables of setup's block at the end of config.toml. */
function codexTables(
  options: SetupOptions,
  hook: { trustKey: string; command: string; capture: boolean; userProvider?: Record<string, unknown> },
): string[] {
  // Codex starts MCP servers with a reduced environment: a home of the user's own must be named.
  const home = options.env.SPILLWAY_HOME?.trim();
  const tables = [
    `# undo checks its backups against this: ${SEAL_PLACEHOLDER}`,
    `[mcp_servers.spillway]`,
    `command = ${tomlString(options.spillway.command)}`,
    `args = [${[...options.spillway.args, 'mcp'].map(tomlString).join(', ')}]`,
    ...(home ? [`env = { SPILLWAY_HOME = ${tomlString(home)} }`] : []),
    '',
    `[hooks.state.${tomlString(hook.trustKey)}]`,
    `trusted_hash = ${tomlString(codexTrustHash('Bash', hook.command))}`,
  ];
  // The capture runs outside Codex's sandbox only: the sandbox gets no folder of spillway's.
  if (hook.capture)
    tables.push(
      '',
      '[shell_environment_policy.set]',
      `BASH_ENV = ${tomlString(codexCaptureScriptPath(options))}`,
    );
  if (options.proxy) {
    // A provider of the user's lends its key variable and wire API; its base URL is kept as the
    // proxy's upstream (keptUpstreamEdit).
    const user = hook.userProvider;
    tables.push(
      '',
      '[model_providers.spillway]',
      'name = "spillway"',
      `base_url = ${tomlString(`${options.proxy}/v1`)}`,
      `wire_api = ${tomlString(typeof user?.wire_api === 'string' ? user.wire_api : 'responses')}`,
      `env_key = ${tomlString(typeof user?.env_key === 'string' ? user.env_key : 'OPENAI_API_KEY')}`,
    );
  }
  return tables;
}

/**
 * `hooks.json` with spillway's PostToolUse group on Bash, last (its index is part of the trust
 * key, read from the hooks.json setup writes, so the key is right when the user has hook groups
 * of their own), and `groupIndex` to read that index. An earlier spillway's PreToolUse group (the
 * command rewrite) is taken out too; the user's groups stay.
 */
function codexHooksEdit(
  path: string,
  command: string,
): { edit: FileEdit; groupIndex: (text: string) => number } {
  const groups = (text: string, event: string) =>
    ((readJsonc(text, path).hooks ?? {}) as Record<string, unknown>)[event];
  const withoutOwn = (text: string) => {
    let out = text;
    for (const event of ['PreToolUse', 'PostToolUse']) {
      const list = groups(out, event);
      if (!Array.isArray(list)) continue;
      const others = list.filter((g) => !isOwnHookGroup(g));
      if (others.length !== list.length)
        out = setJsonc(out, ['hooks', event], others.length ? others : undefined);
    }
    return withoutEmpty(out, [['hooks']]);
  };
  const edit: FileEdit = {
    path,
    purpose: 'PostToolUse hook on Bash: beside a cut output, the recall id of the whole',
    remove: withoutOwn,
    add: (text) => {
      const base = withoutOwn(text);
      const post = groups(base, 'PostToolUse');
      const hook = { matcher: 'Bash', hooks: [{ type: 'command', command }] };
      return setJsonc(base, ['hooks', 'PostToolUse'], [...(Array.isArray(post) ? post : []), hook]);
    },
  };
  const groupIndex = (text: string) => {
    const post = groups(text, 'PostToolUse');
    return Array.isArray(post) ? post.filter((g) => !isOwnHookGroup(g)).length : 0;
  };
  return { edit, groupIndex };
}

/**
 * Codex's files: the capture script (`BASH_ENV`: bash keeps each shell command's whole output in
 * a spool, outside Codex's sandbox, the command untouched); `hooks.json` gets the PostToolUse hook
 * on Bash that, where Codex cut an output (about 10,000 tokens) and the spool holds it whole,
 * adds its recall id beside Codex's cut; `config.toml` gets that hook's trust entry, `BASH_ENV`
 * for Codex's shell commands, spillway as an MCP server for `spillway_expand`, and, with a proxy,
 * a model provider that sends requests through it.
 *
 * @example
 * const edits = codexSetup({ home: '/home/u', env: {}, spillway, proxy: 'http://127.0.0.1:4747' });
 */
export function codexSetup(options: SetupOptions): FileEdit[] {
  const dir = codexDir(options);
  const hooksPath = join(dir, 'hooks.json');
  const configPath = join(dir, 'config.toml');
  const command = spillwayShell(options.spillway, ['hook', 'codex']);
  const { edit: hooks, groupIndex } = codexHooksEdit(hooksPath, command);
  const scriptPath = codexCaptureScriptPath(options);
  // A BASH_ENV of the user's own (in the environment Codex inherits) is read by the capture, and
  // handed on to the shells a command starts, as bash alone would.
  const own = options.env.BASH_ENV?.trim();
  const capture: FileEdit = {
    path: scriptPath,
    purpose: "BASH_ENV for Codex's shell commands: their whole output kept in a spool",
    remove: () => '',
    add: () =>
      codexCaptureScript({
        spoolDir: codexSpoolDir(options.env),
        ...(own && own !== scriptPath ? { userBashEnv: own } : {}),
      }),
  };
  // Codex keeps $CODEX_HOME read-only inside its sandbox's writable roots: setup's seal lives here.
  const config: FileEdit = {
    path: configPath,
    holdsSeal: true,
    purpose: `hook trust, capture (BASH_ENV), MCP server${options.proxy ? ', model provider' : ''}${options.mcp?.length ? `; MCP servers through spillway gateway: ${options.mcp.join(', ')}` : ''}`,
    remove: keepingForm(withoutBlocks),
    add: keepingForm((text: string, planned: (path: string) => string) => {
      const base = withoutBlocks(text);
      const parsed = readToml(base, configPath);
      for (const [table, key] of [
        ['mcp_servers', 'spillway'],
        ['model_providers', 'spillway'],
      ] as const)
        if ((parsed[table] as Record<string, unknown> | undefined)?.[key] !== undefined)
          throw new SpillwayError(
            'SPILLWAY_BAD_CONFIG',
            `${configPath} already has [${table}.${key}] of its own; remove it, then run setup again`,
          );
      let head = '';
      let body = base;
      if (options.proxy) {
        // A top-level key must come before the first table; a model_provider of the user's is
        // switched off (undo switches it back on).
        body = body.replace(/^([ \t]*model_provider[ \t]*=.*)$/m, (line, _l, offset: number) =>
          /^\s*\[/m.test(body.slice(0, offset)) ? line : `${COMMENTED}${line}`,
        );
        head = block('codex', [`model_provider = "spillway"`]);
      }
      const tables = codexTables(options, {
        userProvider: userProviderOf(parsed, configPath),
        trustKey: `${hooksPath}:post_tool_use:${groupIndex(planned(hooksPath))}:0`,
        command,
        // A shell_environment_policy of the user's own is left as it is (see the setup note).
        capture: codexCaptureSupported() && parsed.shell_environment_policy === undefined,
      });
      // Built from the user's own text each time: setting up twice writes the same bytes as once,
      // and withoutBlocks gives that text back exactly.
      if (options.mcp?.length) body = wrapCodexServers(body, parsed, options, configPath);
      const out = `${head}${appendBlock(body, 'codex', tables)}`;
      readToml(out, configPath); // never write a file Codex cannot read
      return out;
    }),
  };
  const kept = keptUpstreamEdit(options, {
    openai: (planned) => {
      const base = userProviderOf(
        readToml(withoutBlocks(planned(configPath)), configPath),
        configPath,
      )?.base_url;
      return typeof base === 'string' ? base.replace(/\/v1\/?$/, '') : undefined;
    },
  });
  return [capture, hooks, kept, config];
}

/**
 * The model provider of the user's own that `config.toml` selects (a `[model_providers.X]`
 * table), when setup with a proxy is to chain to it. Its base URL must end in `/v1`: the proxy
 * forwards `/v1/...` paths, so another path could not be kept.
 */
function userProviderOf(parsed: Record<string, unknown>, file: string): Record<string, unknown> | undefined {
  const name = parsed.model_provider;
  if (typeof name !== 'string' || name === 'spillway') return undefined;
  const provider = (parsed.model_providers as Record<string, Record<string, unknown>> | undefined)?.[name];
  if (!provider || typeof provider.base_url !== 'string') return undefined;
  if (!/\/v1\/?$/.test(provider.base_url))
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${file} sends Codex to the provider "${name}" at ${provider.base_url}; spillway's proxy can stand in front of a base URL ending in /v1 only. Run setup without --proxy (hooks and recall only), or point that provider at the proxy by hand (docs/clients.md)`,
    );
  return provider;
}
