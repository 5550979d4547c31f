import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SpillwayError } from '../../errors.js';
import { McpGateway } from '../../mcp/gateway.js';
import { SOURCE_MAX_TOKENS } from '../../pipeline/collapse-output.js';
import { intOption, parseCommandArgs } from '../args.js';
import { forwardSignals, splitCommand, statusOf } from '../child.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const GATEWAY_HELP = `usage: spillway gateway [--tokens N] [--tool NAME=N]... [--dir D | --store URL] -- COMMAND [ARGS...]

Runs an MCP server (COMMAND, on standard input and output) behind spillway: every message
passes through unchanged, but a tools/call result whose text is over the budget is collapsed
(what matters kept, markers with line ranges) and its original stashed, recallable with the
spillway_expand tool the gateway adds to the server's tools. Errors, images and other blocks
pass through as they are; a result that cannot be stashed goes through whole.

Register it where the server was, e.g. with Claude Code:
  claude mcp add files -- spillway gateway -- npx -y @modelcontextprotocol/server-filesystem /srv

  --tokens N        budget of a tool result's text (default ${SOURCE_MAX_TOKENS}; under every major
                    client's MCP limit); a tool's _meta "anthropic/maxResultSizeChars" lowers it
  --tool NAME=N     budget of one tool's results; N=0 passes them through whole (repeatable)
${STORE_HELP}
  -h, --help        show this help
`;

const VALUE_OPTIONS = new Set(['--tokens', '--tool', '--dir', '--store']);

/** `--tool NAME=N` flags as a budget table. */
function toolBudgets(flags: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const flag of flags) {
    const m = /^(.+)=(\d+)$/.exec(flag);
    if (!m)
      throw new SpillwayError(
        'SPILLWAY_USAGE',
        `--tool takes NAME=N (N a whole number of tokens, 0 to pass through), got "${flag}"`,
      );
    out[m[1] as string] = Number(m[2]);
  }
  return out;
}

export async function gatewayCommand(argv: string[], io: CliIo): Promise<number> {
  const split = splitCommand(argv, VALUE_OPTIONS);
  const { values, positionals } = parseCommandArgs('gateway', split.options, {
    tokens: { type: 'string' },
    tool: { type: 'string', multiple: true },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, GATEWAY_HELP);
    return 0;
  }
  const command = [...positionals, ...split.command];
  if (command.length === 0)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      'gateway needs the MCP server to run: spillway gateway -- COMMAND [ARGS...]',
    );
  const budgets = {
    maxTokens: intOption('--tokens', values.tokens, 1) ?? SOURCE_MAX_TOKENS,
    tools: toolBudgets((values.tool as unknown as string[] | undefined) ?? []),
  };
  return withStore(values, io.env, (store) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    const unforward = forwardSignals(child);
    const gateway = new McpGateway({
      store,
      budgets,
      toClient: (line) => io.stdout.write(`${line}\n`),
      toUpstream: (line) => child.stdin.write(`${line}\n`),
      log: (line) => io.stderr.write(`${JSON.stringify({ gateway: true, ...line })}\n`),
    });
    const upstreamDone = (async () => {
      for await (const line of createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }))
        if (line.trim() !== '') await gateway.fromUpstream(line);
    })();
    const clientDone = (async () => {
      for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY }))
        if (line.trim() !== '') await gateway.fromClient(line);
      // The client closed its side: so does the gateway, and the server ends as it would.
      child.stdin.end();
    })();
    return new Promise<number>((resolve, reject) => {
      child.on('error', (err) =>
        reject(
          new SpillwayError('SPILLWAY_IO', `cannot start the MCP server "${command[0]}": ${err.message}`, {
            cause: err,
          }),
        ),
      );
      child.on('exit', (code, signal) => {
        unforward();
        // What the server wrote before it ended still reaches the client.
        void Promise.race([upstreamDone, new Promise((r) => setTimeout(r, 2000))]).then(() => {
          void clientDone.catch(() => {});
          // Nothing is left to serve: stop reading the client, so the process can end.
          (io.stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
          resolve(statusOf(code, signal));
        });
      });
    });
  });
}
