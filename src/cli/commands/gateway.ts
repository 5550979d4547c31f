import { spawn } from 'node:child_process';
import { SOURCE_MAX_TOKENS } from '../../engine/index.js';
import { SpillwayError } from '../../errors.js';
import {
  type GatewayBudgets,
  HttpUpstream,
  McpGateway,
  parseGatewayConfig,
} from '../../mcp/gateway/index.js';
import { boundedLines, MAX_MESSAGE_BYTES } from '../../mcp/index.js';
import { budgetOption, intOption, parseCommandArgs } from '../args.js';
import { forwardSignals, splitCommand, statusOf } from '../child.js';
import { helpText } from '../help.js';
import { type CliIo, readConfigFile, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const GATEWAY_HELP =
  helpText(`usage: spillway gateway [--tokens N] [--tool NAME=N]... [--config FILE] [--no-expand]
                        [--max-message-bytes N] [--dir D | --store URL] -- COMMAND [ARGS...]
       spillway gateway [options] --url URL [--header 'Name: value']...

Runs an MCP server (COMMAND, on standard input and output; or one at URL over Streamable
HTTP, the headers given sent with each request) behind spillway, itself on stdio: every message
passes through unchanged, but a tools/call result whose text is over the budget is collapsed
(what matters kept, markers with line ranges) and its original stashed, recallable with the
spillway_expand tool the gateway adds to the server's tools. Errors, images and other blocks
pass through as they are; a result that cannot be stashed goes through whole.

Register it where the server was, e.g. with Claude Code:
  claude mcp add files -- spillway gateway -- npx -y @modelcontextprotocol/server-filesystem /srv

  --tokens N        budget of a tool result's text (default ${SOURCE_MAX_TOKENS}; under every major
                    client's MCP limit); a tool's _meta "anthropic/maxResultSizeChars" lowers it
  --tool NAME=N     budget of one tool's results; N=0 passes them through whole (repeatable)
  --config FILE     budgets as JSON: {"maxTokens": N, "tools": {"NAME": N}} (flags win)
  --no-expand       add no spillway_expand: the client has spillway's own MCP server
                    (spillway setup --mcp wraps servers with this)
  --url URL         the MCP server's Streamable HTTP endpoint, instead of COMMAND
  --header 'N: V'   a header for every request to URL (repeatable; never logged)
  --max-message-bytes N
                    the most bytes one message may take (default ${MAX_MESSAGE_BYTES}); a longer
                    one is dropped and its request answered with an error naming the limit
${STORE_HELP}
  -h, --help        show this help
`);

const VALUE_OPTIONS = new Set([
  '--tokens',
  '--tool',
  '--config',
  '--url',
  '--header',
  '--dir',
  '--store',
  '--max-message-bytes',
]);

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
    url: { type: 'string' },
    header: { type: 'string', multiple: true },
    config: { type: 'string' },
    'no-expand': { type: 'boolean' },
    'max-message-bytes': { type: 'string' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, GATEWAY_HELP);
    return 0;
  }
  const command = [...positionals, ...split.command];
  if ((command.length === 0) === (values.url === undefined))
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      'gateway needs one MCP server: spillway gateway -- COMMAND [ARGS...], or spillway gateway --url URL',
    );
  const config =
    values.config === undefined ? {} : parseGatewayConfig(await readConfigFile(values.config), values.config);
  const budgets = {
    maxTokens: budgetOption('--tokens', values.tokens, 'tokens') ?? config.maxTokens ?? SOURCE_MAX_TOKENS,
    tools: { ...config.tools, ...toolBudgets((values.tool as unknown as string[] | undefined) ?? []) },
  };
  if (values.url !== undefined)
    return serveHttpUpstream(
      values.url,
      headersOf((values.header as unknown as string[] | undefined) ?? []),
      { values, budgets, expandTool: !values['no-expand'], io },
    );
  const maxMessage = intOption('--max-message-bytes', values['max-message-bytes'], 1024) ?? MAX_MESSAGE_BYTES;
  return withStore(values, io.env, (store) => {
    const child = spawn(command[0] as string, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
    const unforward = forwardSignals(child);
    const gateway = new McpGateway({
      store,
      budgets,
      expandTool: !values['no-expand'],
      toClient: (line) => writeWaiting(io.stdout, `${line}\n`),
      toUpstream: (line) => child.stdin.write(`${line}\n`),
      log: (line) => io.stderr.write(`${JSON.stringify({ gateway: true, ...line })}\n`),
    });
    const upstreamDone = (async () => {
      for await (const item of boundedLines(child.stdout, maxMessage))
        if ('oversize' in item) await gateway.tooLong('upstream', item, maxMessage);
        // Half a message from a server that died: the client gets an error for it, not the half.
        else if (item.partial && !isJson(item.line)) continue;
        else if (item.line.trim() !== '') await gateway.fromUpstream(item.line);
    })();
    const clientDone = (async () => {
      for await (const item of boundedLines(io.stdin as AsyncIterable<Buffer>, maxMessage))
        if ('oversize' in item) await gateway.tooLong('client', item, maxMessage);
        else if (item.line.trim() !== '') await gateway.fromClient(item.line);
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
        // What the server wrote before it ended still reaches the client; a request it never
        // answered gets an error, not a wait for ever.
        void Promise.race([upstreamDone, new Promise((r) => setTimeout(r, 2000))])
          .then(() => gateway.upstreamEnded(signal ? `ended on ${signal}` : `exited with code ${code}`))
          .then(() => {
            void clientDone.catch(() => {});
            // Nothing is left to serve: stop reading the client, so the process can end.
            (io.stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
            resolve(statusOf(code, signal));
          });
      });
    });
  });
}

const isJson = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

/** Writes to a stream and, when its buffer is full (a slow client), waits until it drains. */
function writeWaiting(stream: NodeJS.WritableStream, text: string): Promise<void> | undefined {
  if (stream.write(text)) return undefined;
  return new Promise((resolve) => {
    stream.once('drain', resolve);
    stream.once('close', resolve);
  });
}

/** `--header 'Name: value'` flags as headers. */
function headersOf(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const at = flag.indexOf(':');
    if (at <= 0)
      throw new SpillwayError('SPILLWAY_USAGE', `--header takes 'Name: value', got "${flag.slice(0, 40)}"`);
    out[flag.slice(0, at).trim()] = flag.slice(at + 1).trim();
  }
  return out;
}

/** The gateway on stdio in front of a server at `url` (Streamable HTTP), until the client closes. */
async function serveHttpUpstream(
  url: string,
  headers: Record<string, string>,
  o: { values: { dir?: string; store?: string }; budgets: GatewayBudgets; expandTool: boolean; io: CliIo },
): Promise<number> {
  try {
    new URL(url);
  } catch {
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `--url must be a URL such as http://127.0.0.1:3000/mcp, got "${url}"`,
    );
  }
  const { io } = o;
  return withStore(o.values, io.env, async (store) => {
    const log = (line: Record<string, unknown>) =>
      io.stderr.write(`${JSON.stringify({ gateway: true, ...line })}\n`);
    const sending = new Set<Promise<void>>();
    let gateway: McpGateway | undefined;
    const upstream = new HttpUpstream({
      url,
      headers,
      log,
      onMessage: (line) => (gateway as McpGateway).fromUpstream(line),
    });
    gateway = new McpGateway({
      store,
      budgets: o.budgets,
      expandTool: o.expandTool,
      toClient: (line) => writeWaiting(io.stdout, `${line}\n`),
      toUpstream: (line) => {
        const sent = upstream.send(line).finally(() => sending.delete(sent));
        sending.add(sent);
      },
      log,
    });
    for await (const item of boundedLines(io.stdin as AsyncIterable<Buffer>, MAX_MESSAGE_BYTES))
      if ('oversize' in item) await gateway.tooLong('client', item, MAX_MESSAGE_BYTES);
      else if (item.line.trim() !== '') await gateway.fromClient(item.line);
    await Promise.allSettled([...sending]);
    await upstream.close();
    return 0;
  });
}
