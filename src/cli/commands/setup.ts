import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  applySetup,
  CLIENT_KEYS,
  type ClientSetup,
  type ClientSpec,
  isClientKey,
  leavesAsItIs,
  loadClient,
  loadClients,
  type PlannedFile,
  planSetup,
  readSetup,
  type SetupOptions,
  type SetupState,
  sealHolder,
  setupStateDir,
  spillwayCommand,
  undoSetup,
} from '../../clients/index.js';
import { SpillwayError } from '../../errors.js';
import {
  type KeptUpstreams,
  parseKeptUpstreams,
  readKeptUpstreams,
  upstreamsFile,
} from '../../store/index.js';
import { parseCommandArgs } from '../args.js';
import { helpText, termList } from '../help.js';
import { type CliIo, write } from '../io.js';

/** The help, from each client's spec. */
function setupHelp(specs: readonly ClientSpec[]): string {
  const keys = specs.map((c) => c.key).join('|');
  return helpText(`usage: spillway setup ${keys} [--proxy URL] [--mcp NAME]... [--print] [--undo]

Sets a client up so spillway sees the whole output of its shell commands past the client's own
cut, and registers spillway_expand:
${termList(specs.map((c) => [c.key, `${c.name} cuts at ${c.limit}.\n${c.setupHelp}`]))}
No command is rewritten: each client's rules, approvals, sandbox and shell judge and run the
command the model wrote, and an output the client shows whole reaches the model as it was.
Files are parsed and edited in place (comments, line endings and the rest kept); each original
is backed up under ~/.spillway/setup, and --undo puts it back byte for byte (or, when the client
changed the file since, takes out only spillway's entries). Setting a client up again keeps the
proxy and servers of the earlier setup. Commands name this spillway by absolute path, so it
need not be on the PATH. Run "spillway doctor" afterwards to check every link.

  --proxy URL   also send the client's model requests through the spillway proxy at URL
                (e.g. http://127.0.0.1:4747). The proxy must then be running. An endpoint the
                client was pointed at (a gateway in ANTHROPIC_BASE_URL, a provider of yours) is
                kept as the proxy's upstream ($SPILLWAY_HOME/upstreams.json) with its key
                variable; undo points the client back at it.
  --mcp NAME    also run the client's MCP server NAME through "spillway gateway" (its long
                results collapsed at the source; repeatable; "all" for every one); --undo
                unwraps the ones setup wrapped, never one you wrapped yourself
  --print       show what would be written, change nothing
  --undo        restore the files setup changed
  -h, --help    show this help
`);
}

export const SETUP_HELP = setupHelp(await loadClients());

/** The options every client's plan is built from (HOME as the client itself reads it). */
export function setupOptionsFor(io: CliIo, proxy: string | undefined) {
  const home = io.env.HOME || homedir();
  return {
    home,
    env: { ...io.env, HOME: home },
    spillway: spillwayCommand(),
    ...(proxy ? { proxy } : {}),
  };
}

function checkProxyUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `--proxy takes a URL such as http://127.0.0.1:4747, got "${url}"`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new SpillwayError('SPILLWAY_USAGE', `--proxy takes an http:// or https:// URL, got "${url}"`);
  return url.replace(/\/+$/, '');
}

/**
 * The servers `--mcp` names, resolved against the client's config (`all`: every one not yet
 * behind the gateway), joined to those an earlier setup wrapped. A server the user already runs
 * through the gateway by hand is theirs: setup leaves it, and undo never unwraps it.
 */
function chosenServers(
  client: ClientSpec,
  setup: ClientSetup,
  options: SetupOptions,
  asked: readonly string[],
  earlier: readonly string[],
): string[] {
  if (asked.length === 0) return [...earlier];
  if (!setup.mcpServers)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `setup ${client.key} takes no --mcp: run its MCP servers through "spillway gateway" by hand (docs/gateway.md)`,
    );
  const servers = setup.mcpServers(options);
  const unknown = asked.filter((n) => n !== 'all' && !servers.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `${client.name} has no MCP server named ${unknown.map((n) => `"${n}"`).join(', ')}; it has: ${servers.map((s) => s.name).join(', ') || '(none)'}`,
    );
  const chosen = servers
    .filter(
      (s) => (asked.includes('all') || asked.includes(s.name)) && (!s.wrapped || earlier.includes(s.name)),
    )
    .map((s) => s.name);
  return [...new Set([...earlier, ...chosen])];
}

const UNDONE = {
  restored: 'restored as it was',
  removed: 'removed (it did not exist before)',
  edited: "changed since setup: took out only spillway's entries",
  unchanged: 'left as it is',
} as const;

export async function setupCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('setup', argv, {
    proxy: { type: 'string' },
    print: { type: 'boolean' },
    undo: { type: 'boolean' },
    mcp: { type: 'string', multiple: true },
  });
  if (values.help) {
    await write(io.stdout, SETUP_HELP);
    return 0;
  }
  const key = positionals[0];
  if (positionals.length !== 1 || !isClientKey(key))
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `setup takes one client: ${CLIENT_KEYS.join(', ')}\nsee: spillway setup --help`,
    );
  const client = await loadClient(key);
  const setup = await client.setup();
  const asked = (values.mcp as unknown as string[] | undefined) ?? [];
  if (values.undo && (values.proxy || values.print || asked.length > 0))
    throw new SpillwayError('SPILLWAY_USAGE', '--undo takes no other option');
  const given = values.proxy === undefined ? undefined : checkProxyUrl(values.proxy);
  const base = setupOptionsFor(io, undefined);
  const stateDir = setupStateDir(base.env);
  if (values.undo) {
    // The endpoints to point the client back at come from the sealed manifest, never from
    // upstreams.json (a file a sandboxed command may have written).
    const done = await undoSetup(key, (state) => setup.edits({ ...base, ...state }), { stateDir });
    await write(
      io.stdout,
      done
        ? done.map((f) => `${f.path}: ${UNDONE[f.how]}\n`).join('')
        : `spillway setup ${key} has nothing to undo (it was not set up here)\n`,
    );
    return 0;
  }
  const kept = readKeptUpstreams(base.env);
  const earlier = readSetup(stateDir, key, sealHolder(setup.edits(base)));
  // Setting up again keeps what the earlier setup did: its proxy and the servers it wrapped.
  const proxy = given ?? earlier?.proxy;
  const withProxy = { ...base, kept, ...(proxy ? { proxy } : {}) };
  const mcp = chosenServers(client, setup, withProxy, asked, earlier?.mcp ?? []);
  const options = { ...withProxy, mcp };
  const files = planSetup(setup.edits(options));
  if (values.print) {
    for (const f of files)
      await write(
        io.stdout,
        `--- ${f.path} (${f.purpose})${leavesAsItIs(f) ? ', unchanged' : ''}\n${f.after}${f.after.endsWith('\n') ? '' : '\n'}`,
      );
    return 0;
  }
  await applySetup(key, files, {
    stateDir,
    mcp,
    ...(proxy ? { proxy } : {}),
    kept: newlyKept(files, base.env),
  });
  for (const folder of setup.folders?.(options.env) ?? [])
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  const warnings = setup.warnings?.(options) ?? [];
  await write(
    io.stdout,
    setupReport(client, files, { kept, options, given, earlier: earlier ?? {}, warnings }),
  );
  return 0;
}

/** The endpoints this setup adds to upstreams.json (not those another client's setup kept). */
function newlyKept(files: PlannedFile[], env: NodeJS.ProcessEnv): KeptUpstreams {
  const file = files.find((f) => f.path === upstreamsFile(env));
  if (!file) return {};
  const before = parseKeptUpstreams(file.before ?? '', file.path);
  const after = parseKeptUpstreams(file.after, file.path);
  return Object.fromEntries(
    Object.entries(after).filter(([api, url]) => before[api as keyof KeptUpstreams] !== url),
  );
}

/** What setup tells the user: each file, an endpoint it kept, what it kept from before, the next steps. */
function setupReport(
  client: ClientSpec,
  files: ReturnType<typeof planSetup>,
  at: {
    kept: KeptUpstreams;
    options: SetupOptions;
    given: string | undefined;
    earlier: SetupState;
    warnings: string[];
  },
): string {
  const { options } = at;
  const nowKept = readKeptUpstreams(options.env);
  const lines = [
    `${client.name} is set up for spillway:`,
    ...files.map((f) => `  ${f.path}: ${f.purpose}${leavesAsItIs(f) ? ' (already set)' : ''}`),
    ...(Object.keys(nowKept) as (keyof KeptUpstreams)[])
      .filter((api) => nowKept[api] !== at.kept[api])
      .map(
        (api) =>
          `${client.name} was pointed at ${nowKept[api]}: the proxy now sends its ${api} requests there (restart the proxy if it runs; undo points ${client.name} back)`,
      ),
    ...(at.given === undefined && options.proxy
      ? [`Kept from the earlier setup: --proxy ${options.proxy}`]
      : []),
    ...at.warnings.map((w) => `Warning: ${w}`),
    ...client.notes.map((n) => `Note: ${n}`),
    ...(options.proxy
      ? [`Start the proxy before the client: spillway proxy --port ${new URL(options.proxy).port || 80}`]
      : []),
    `Check it with: spillway doctor ${client.key}`,
    `Undo with: spillway setup ${client.key} --undo`,
  ];
  return `${lines.join('\n')}\n`;
}
