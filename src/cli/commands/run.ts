import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { SpillwayError } from '../../errors.js';
import { collapseOutput, SOURCE_MAX_TOKENS } from '../../pipeline/collapse-output.js';
import { DEFAULT_LIMITS } from '../../store/store.js';
import { OutputCapture } from '../../text/output-capture.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

/**
 * The most characters `spillway run` prints: under the strictest client's own cut (Claude Code
 * persists Bash output over 30,000 characters and shows a 2 KB preview; Codex cuts at about
 * 10,000 tokens; Gemini CLI at 40,000 characters), so no client cuts spillway's collapse again.
 */
export const RUN_MAX_CHARS = 25_000;

export const RUN_HELP = `usage: spillway run [--tokens N] [--tokenizer T] [--dir D | --store URL] [--] COMMAND [ARGS...]

Runs COMMAND, captures its standard output and standard error whole (interleaved as a terminal
shows them), and prints them unchanged when they fit in N tokens; otherwise stashes the exact
output and prints a collapse that keeps the errors, failures and summaries from anywhere, with
markers naming the recall id (<<sw:ID>>, for "spillway expand ID" or the spillway_expand tool)
and the stashed file. Standard input passes through; the exit status is COMMAND's own (128+N
when a signal N ended it); SIGINT, SIGTERM and SIGHUP are passed on to COMMAND.

Tell an agent to use it, e.g. in AGENTS.md, CLAUDE.md or GEMINI.md:
  Prefix shell commands that may print a lot (builds, tests, logs) with "spillway run --".

  --tokens N      token budget (default ${SOURCE_MAX_TOKENS}: with a client's frame around it, still
                  under the proxy's 2,000; the text also stays under ${RUN_MAX_CHARS} characters,
                  below every major client's own cut)
  --tokenizer T   o200k (default), cl100k or heuristic
${STORE_HELP}
  -h, --help      show this help
`;

/** How long output is still read after the command exits (its background children may write). */
const EXIT_DRAIN_MS = 1000;

const VALUE_OPTIONS = new Set(['--tokens', '--tokenizer', '--dir', '--store']);

/** Splits `[options] [--] COMMAND ARGS...`: the command starts at `--` or the first non-option. */
function splitCommand(argv: string[]): { options: string[]; command: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return { options: argv.slice(0, i), command: argv.slice(i + 1) };
    if (!arg.startsWith('-')) return { options: argv.slice(0, i), command: argv.slice(i) };
    if (VALUE_OPTIONS.has(arg)) i++;
  }
  return { options: argv, command: [] };
}

/** Runs the command with stdout and stderr on one pipe, as a terminal would interleave them. */
function runChild(command: string[], io: CliIo, capture: OutputCapture): Promise<number> {
  return new Promise((resolve, reject) => {
    // `exec "$@" 2>&1` puts stderr on stdout's pipe, so the two keep the order the command wrote
    // them in; sh execs the command, so signals reach it directly.
    const child = spawn('/bin/sh', ['-c', 'exec "$@" 2>&1', 'sh', ...command], {
      stdio: [io.stdin === process.stdin ? 'inherit' : 'pipe', 'pipe', 'inherit'],
      env: io.env,
    });
    if (io.stdin !== process.stdin && child.stdin) {
      io.stdin.pipe(child.stdin);
      child.stdin.on('error', () => {}); // the command may exit without reading its input
    }
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
    for (const [s, h] of handlers) process.on(s, h);
    child.stdout?.on('data', (chunk: Buffer) => capture.push(chunk));
    child.on('error', (err) =>
      reject(new SpillwayError('SPILLWAY_IO', `cannot start /bin/sh: ${err.message}`)),
    );
    child.on('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      const status = signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1);
      // A process the command left in the background may hold the pipe open for ever: read what
      // is already written, then stop waiting.
      const drained = setTimeout(() => {
        child.stdout?.destroy();
        resolve(status);
      }, EXIT_DRAIN_MS);
      child.once('close', () => {
        clearTimeout(drained);
        resolve(status);
      });
    });
  });
}

/** Stashes and collapses `raw`, lowering the budget until the text is under RUN_MAX_CHARS. */
async function collapseForClients(
  raw: Buffer,
  values: { tokens?: string; tokenizer?: string; dir?: string; store?: string },
  env: NodeJS.ProcessEnv,
) {
  let maxTokens = intOption('--tokens', values.tokens, 1) ?? SOURCE_MAX_TOKENS;
  return withStore(values, env, async (store) => {
    for (;;) {
      const out = await collapseOutput(raw, { store, maxTokens, tokenizer: values.tokenizer, tool: 'run' });
      if (out.text.length <= RUN_MAX_CHARS || maxTokens < 64) return out;
      maxTokens = Math.floor((maxTokens * RUN_MAX_CHARS) / out.text.length / 1.25);
    }
  });
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const split = splitCommand(argv);
  const { values, positionals } = parseCommandArgs('run', split.options, {
    tokens: { type: 'string' },
    tokenizer: { type: 'string' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, RUN_HELP);
    return 0;
  }
  const command = [...positionals, ...split.command];
  if (command.length === 0)
    throw new SpillwayError('SPILLWAY_USAGE', 'run needs a COMMAND, e.g. spillway run -- make test');
  // Bad options fail before the command runs, not after.
  intOption('--tokens', values.tokens, 1);
  getTokenizer(values.tokenizer);
  const capture = new OutputCapture(DEFAULT_LIMITS.maxFileBytes);
  const status = await runChild(command, io, capture);
  const raw = capture.joined(
    (dropped) =>
      `\n[spillway run: ${dropped} bytes in the middle of this output were past the ${DEFAULT_LIMITS.maxFileBytes}-byte limit and were not kept]\n`,
  );
  let out: Awaited<ReturnType<typeof collapseForClients>>;
  try {
    out = await collapseForClients(raw, values, io.env);
  } catch (err) {
    // Nothing is lost: when the store cannot be reached, the output goes out whole.
    await write(io.stdout, raw.toString('utf8'));
    await write(io.stderr, `spillway run: the output was not shortened: ${(err as Error).message}\n`);
    return status;
  }
  if (out.stashError !== undefined) {
    // Nothing is lost: an output that cannot be recalled later goes out whole now.
    await write(io.stdout, raw.toString('utf8'));
    await write(
      io.stderr,
      `spillway run: the output was not shortened: the original could not be stashed (${out.stashError})\n`,
    );
    return status;
  }
  await write(io.stdout, out.text);
  return status;
}
