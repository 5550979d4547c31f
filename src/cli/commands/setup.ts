import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { CLIENTS } from '../../clients/index.js';
import { applySetup, planSetup, setupStateDir, undoSetup } from '../../clients/setup-files.js';
import { spillwayCommand } from '../../clients/spillway-command.js';
import { SpillwayError } from '../../errors.js';
import { readKeptUpstreams } from '../../store/upstreams-file.js';
import { parseCommandArgs } from '../args.js';
import { type CliIo, write } from '../io.js';

export const SETUP_HELP = `usage: spillway setup claude|codex|gemini [--proxy URL] [--mcp NAME]... [--print] [--undo]

Sets a client up so spillway sees the whole output of its shell commands, before the client's
own cut (Claude Code: 30,000 characters, then a 2 KB preview; Codex: about 10,000 tokens;
Gemini CLI: the first 8,000 and last 32,000 characters), and registers spillway_expand:
  claude  ~/.claude/settings.json: a PostToolUse hook on Bash that sends the model a collapse
          of the output Claude Code saved; ~/.claude.json: the spillway MCP server
  codex   ~/.spillway/capture/codex.bash: BASH_ENV that keeps each shell command's whole output
          in a spool; ~/.codex/hooks.json: a PostToolUse hook that sends the model a collapse of
          it where Codex cut the output; ~/.codex/config.toml: the hook's trust entry, BASH_ENV,
          the spool folder writable under workspace-write, and the spillway MCP server
  gemini  ~/.gemini/settings.json: an AfterTool hook that, where Gemini CLI shows only the head
          and tail of an output, adds the lines that matter from the rest and the recall id;
          and the spillway MCP server
No command is rewritten: each client's rules, approvals, sandbox and shell judge and run the
command the model wrote, and an output the client shows whole reaches the model as it was.
Files are parsed and edited in place (comments and the rest kept); each original is backed up
under ~/.spillway/setup, and --undo puts it back byte for byte (or, when the client changed the
file since, takes out only spillway's entries). Commands name this spillway by absolute path,
so it need not be on the PATH. Run "spillway doctor" afterwards to check every link.

  --proxy URL   also send the client's model requests through the spillway proxy at URL
                (e.g. http://127.0.0.1:4747): ANTHROPIC_BASE_URL, a Codex model provider,
                GOOGLE_GEMINI_BASE_URL. The proxy must then be running. An endpoint the client
                was pointed at (a gateway in ANTHROPIC_BASE_URL, a Codex provider of yours) is
                kept as the proxy's upstream ($SPILLWAY_HOME/upstreams.json) with its key
                variable; undo points the client back at it.
  --mcp NAME    also run the client's MCP server NAME through "spillway gateway" (its long
                results collapsed at the source; repeatable; "all" for every one): Claude Code's
                user and local servers in ~/.claude.json, Codex's config.toml, Gemini CLI's
                settings; --undo unwraps them
  --print       show what would be written, change nothing
  --undo        restore the files setup changed
  -h, --help    show this help
`;

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
  const client = positionals.length === 1 && key && Object.hasOwn(CLIENTS, key) ? CLIENTS[key] : undefined;
  if (!client || !key)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `setup takes one client: ${Object.keys(CLIENTS).join(', ')}\nsee: spillway setup --help`,
    );
  const mcp = (values.mcp as unknown as string[] | undefined) ?? [];
  if (values.undo && (values.proxy || values.print || mcp.length > 0))
    throw new SpillwayError('SPILLWAY_USAGE', '--undo takes no other option');
  const proxy = values.proxy === undefined ? undefined : checkProxyUrl(values.proxy);
  const base = setupOptionsFor(io, proxy);
  const kept = readKeptUpstreams(base.env);
  const options = { ...base, kept, ...(mcp.length > 0 ? { mcp } : {}) };
  const stateDir = setupStateDir(options.env);
  if (values.undo) {
    const done = await undoSetup(key, (p) => client.edits({ ...options, ...(p ? { proxy: p } : {}) }), {
      stateDir,
    });
    if (!done) {
      await write(io.stdout, `spillway setup ${key} has nothing to undo (it was not set up here)\n`);
      return 0;
    }
    const say = {
      restored: 'restored as it was',
      removed: 'removed (it did not exist before)',
      edited: "changed since setup: took out only spillway's entries",
      unchanged: 'left as it is',
    };
    await write(io.stdout, done.map((f) => `${f.path}: ${say[f.how]}\n`).join(''));
    return 0;
  }
  const files = planSetup(client.edits(options));
  if (values.print) {
    for (const f of files)
      await write(
        io.stdout,
        `--- ${f.path} (${f.purpose})${f.before === f.after ? ', unchanged' : ''}\n${f.after}${f.after.endsWith('\n') ? '' : '\n'}`,
      );
    return 0;
  }
  await applySetup(key, files, { stateDir, ...(proxy ? { proxy } : {}) });
  const nowKept = readKeptUpstreams(options.env);
  const keptLines = (Object.keys(nowKept) as (keyof typeof nowKept)[])
    .filter((api) => nowKept[api] !== kept[api])
    .map(
      (api) =>
        `${client.name} was pointed at ${nowKept[api]}: the proxy now sends its ${api} requests there (restart the proxy if it runs; undo points ${client.name} back)\n`,
    );
  for (const folder of client.folders?.(options.env) ?? [])
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  const lines = files.map(
    (f) => `  ${f.path}: ${f.purpose}${f.before === f.after ? ' (already set)' : ''}\n`,
  );
  await write(
    io.stdout,
    `${client.name} is set up for spillway:\n${lines.join('')}${keptLines.join('')}${client.notes.map((n) => `Note: ${n}\n`).join('')}` +
      `${proxy ? `Start the proxy before the client: spillway proxy --port ${new URL(proxy).port || 80}\n` : ''}` +
      `Check it with: spillway doctor ${key}\nUndo with: spillway setup ${key} --undo\n`,
  );
  return 0;
}
