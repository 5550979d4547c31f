import { SpillwayError } from '../errors.js';
import { type CliIo, write } from './io.js';
import { version } from './version.js';

// A help built from data loaded on demand (the clients' specs) is a function: the command itself
// (a hook, after every shell command) never builds it.
type Command = {
  run: (argv: string[], io: CliIo) => Promise<number>;
  help: string | (() => Promise<string>);
};

// Each command is imported only when it runs, so `spillway --version` or `spillway mcp` does not
// load the proxy, the engine config or a tokenizer table.
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  proxy: {
    summary: 'run the HTTP proxy for Anthropic, OpenAI (Chat and Responses) and Gemini clients',
    load: () => import('./commands/proxy.js').then((m) => ({ run: m.proxyCommand, help: m.PROXY_HELP })),
  },
  mcp: {
    summary: 'serve spillway_expand over MCP on stdio',
    load: () => import('./commands/mcp.js').then((m) => ({ run: m.mcpCommand, help: m.MCP_HELP })),
  },
  gateway: {
    summary: "front an MCP server: its tools' long results collapsed, the originals recallable",
    load: () =>
      import('./commands/gateway.js').then((m) => ({ run: m.gatewayCommand, help: m.GATEWAY_HELP })),
  },
  run: {
    summary: 'run a command and print its output collapsed, the original stashed',
    load: () => import('./commands/run.js').then((m) => ({ run: m.runCommand, help: m.RUN_HELP })),
  },
  setup: {
    summary: 'set Claude Code, Codex or Gemini CLI up to hand spillway whole outputs',
    load: () => import('./commands/setup.js').then((m) => ({ run: m.setupCommand, help: m.SETUP_HELP })),
  },
  doctor: {
    summary: 'check each link between a client and spillway, with the fix for each failure',
    load: () => import('./commands/doctor.js').then((m) => ({ run: m.doctorCommand, help: m.DOCTOR_HELP })),
  },
  hook: {
    summary: "a client's shell hook: hand spillway the whole output (spillway setup installs it)",
    load: () => import('./commands/hook.js').then((m) => ({ run: m.hookCommand, help: m.hookHelp })),
  },
  snip: {
    summary: 'cut a text to a budget, keeping head and tail',
    load: () => import('./commands/snip.js').then((m) => ({ run: m.snipCommand, help: m.SNIP_HELP })),
  },
  cap: {
    summary: 'cap an output, saving the full original for recall',
    load: () => import('./commands/cap.js').then((m) => ({ run: m.capCommand, help: m.CAP_HELP })),
  },
  collapse: {
    summary: 'collapse an output to a token budget, stashing the original',
    load: () =>
      import('./commands/collapse.js').then((m) => ({ run: m.collapseCommand, help: m.COLLAPSE_HELP })),
  },
  explain: {
    summary: 'show which lines collapse keeps of an output, and why',
    load: () =>
      import('./commands/explain.js').then((m) => ({ run: m.explainCommand, help: m.EXPLAIN_HELP })),
  },
  expand: {
    summary: 'print a saved output by its recall id',
    load: () => import('./commands/expand.js').then((m) => ({ run: m.expandCommand, help: m.EXPAND_HELP })),
  },
  prune: {
    summary: 'apply retention to the file store',
    load: () => import('./commands/prune.js').then((m) => ({ run: m.pruneCommand, help: m.PRUNE_HELP })),
  },
  replay: {
    summary: 'measure spillway on transcripts, with an HTML report',
    load: () => import('./commands/replay.js').then((m) => ({ run: m.replayCommand, help: m.REPLAY_HELP })),
  },
  session: {
    summary: 'show or prune a session log',
    load: () =>
      import('./commands/session.js').then((m) => ({ run: m.sessionCommand, help: m.SESSION_HELP })),
  },
  tokens: {
    summary: 'count tokens (o200k, cl100k, heuristic)',
    load: () => import('./commands/tokens.js').then((m) => ({ run: m.tokensCommand, help: m.TOKENS_HELP })),
  },
  models: {
    summary: "print a model's context window",
    load: () => import('./commands/models.js').then((m) => ({ run: m.modelsCommand, help: m.MODELS_HELP })),
  },
  demo: {
    summary: 'snip a real, large output and show the token counts',
    load: () => import('./commands/demo.js').then((m) => ({ run: m.demoCommand, help: m.DEMO_HELP })),
  },
};

export const MAIN_HELP = `usage: spillway <command> [options]

spillway keeps oversized tool results from flooding an LLM agent's context.

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`)
  .join('\n')}

Every command reads FILE or standard input and writes to standard output.
Run "spillway <command> --help" for its options.

  -h, --help     show this help
  -v, --version  print the version
`;

/**
 * Runs the CLI and returns the exit code: 0 on success, 1 on an error, 2 on bad usage.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, stdinIsTTY: !!process.stdin.isTTY, env: process.env });
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      // No command is bad usage: the help goes where errors go, and the exit says so.
      await write(io.stderr, MAIN_HELP);
      return 2;
    }
    if (name === '-h' || name === '--help' || name === 'help') {
      const topic =
        name === 'help' && rest[0] && Object.hasOwn(COMMANDS, rest[0]) ? COMMANDS[rest[0]] : undefined;
      const help = topic ? (await topic.load()).help : MAIN_HELP;
      await write(io.stdout, typeof help === 'string' ? help : await help());
      return 0;
    }
    if (name === '-v' || name === '--version') {
      await write(io.stdout, `${version()}\n`);
      return 0;
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command)
      throw new SpillwayError(
        'SPILLWAY_USAGE',
        `unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')}`,
      );
    return await (await command.load()).run(rest, io);
  } catch (err) {
    if (SpillwayError.isInstance(err)) {
      await write(io.stderr, `spillway: ${err.message}\n`);
      return err.code === 'SPILLWAY_USAGE' ? 2 : 1;
    }
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    await write(io.stderr, `spillway: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
