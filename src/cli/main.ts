import { SpillwayError } from '../errors.js';
import { CAP_HELP, capCommand } from './commands/cap.js';
import { COLLAPSE_HELP, collapseCommand } from './commands/collapse.js';
import { DEMO_HELP, demoCommand } from './commands/demo.js';
import { EXPAND_HELP, expandCommand } from './commands/expand.js';
import { MCP_HELP, mcpCommand } from './commands/mcp.js';
import { MODELS_HELP, modelsCommand } from './commands/models.js';
import { PROXY_HELP, proxyCommand } from './commands/proxy.js';
import { PRUNE_HELP, pruneCommand } from './commands/prune.js';
import { REPLAY_HELP, replayCommand } from './commands/replay.js';
import { SESSION_HELP, sessionCommand } from './commands/session.js';
import { SNIP_HELP, snipCommand } from './commands/snip.js';
import { TOKENS_HELP, tokensCommand } from './commands/tokens.js';
import { type CliIo, write } from './io.js';
import { version } from './version.js';

type Command = { run: (argv: string[], io: CliIo) => Promise<number>; help: string; summary: string };

const COMMANDS: Record<string, Command> = {
  proxy: {
    run: proxyCommand,
    help: PROXY_HELP,
    summary: 'run the HTTP proxy for Anthropic and OpenAI clients',
  },
  mcp: { run: mcpCommand, help: MCP_HELP, summary: 'serve spillway_expand over MCP on stdio' },
  snip: { run: snipCommand, help: SNIP_HELP, summary: 'cut a text to a budget, keeping head and tail' },
  cap: { run: capCommand, help: CAP_HELP, summary: 'cap an output, saving the full original for recall' },
  collapse: {
    run: collapseCommand,
    help: COLLAPSE_HELP,
    summary: 'collapse an output to a token budget, stashing the original',
  },
  expand: { run: expandCommand, help: EXPAND_HELP, summary: 'print a saved output by its recall id' },
  prune: { run: pruneCommand, help: PRUNE_HELP, summary: 'apply retention to the file store' },
  replay: {
    run: replayCommand,
    help: REPLAY_HELP,
    summary: 'measure spillway on transcripts, with an HTML report',
  },
  session: { run: sessionCommand, help: SESSION_HELP, summary: 'show or prune a session log' },
  tokens: { run: tokensCommand, help: TOKENS_HELP, summary: 'count tokens (o200k, cl100k, heuristic)' },
  models: { run: modelsCommand, help: MODELS_HELP, summary: "print a model's context window" },
  demo: { run: demoCommand, help: DEMO_HELP, summary: 'snip a real, large output and show the token counts' },
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
    if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
      const topic = name === 'help' && rest[0] ? COMMANDS[rest[0]] : undefined;
      await write(io.stdout, topic ? topic.help : MAIN_HELP);
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
    return await command.run(rest, io);
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
