import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { collapseWithin, SOURCE_MAX_TOKENS } from '../../collapse/index.js';
import { SpillwayError } from '../../errors.js';
import { MAX_CAPTURE_BYTES, recordAtSource } from '../../store/index.js';
import { OutputCapture } from '../../text/index.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { budgetOption, parseCommandArgs } from '../args.js';
import { forwardSignals, splitCommand, statusOf } from '../child.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

/**
 * The most characters `spillway run` prints: under the strictest client's own cut (Claude Code
 * persists Bash output over 30,000 characters and shows a 2 KB preview; Codex cuts at about
 * 10,000 tokens; Gemini CLI at 40,000 characters), so no client cuts spillway's collapse again.
 */
export const RUN_MAX_CHARS = 25_000;

export const RUN_HELP =
  helpText(`usage: spillway run [--tokens N] [--tokenizer T] [--dir D | --store URL] [--] COMMAND [ARGS...]

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
`);

const VALUE_OPTIONS = new Set(['--tokens', '--tokenizer', '--dir', '--store']);

/** How long the output is read after the command exits, for what a process it left behind still prints. */
const DRAIN_AFTER_EXIT_MS = 250;

/**
 * How the command is started: a shell that points standard error at standard output and then
 * becomes the command (its words are passed as they are, never parsed). With bash, standard
 * output is a real pipe through `cat`: Node gives a child a socket pair, and under a sandbox's
 * system-call filter (Codex's) a Node program writing to a socket loses its output.
 */
const LAUNCH = existsSync('/bin/bash')
  ? ['/bin/bash', '-c', 'exec > >(exec cat) 2>&1; exec "$@"', 'bash']
  : ['/bin/sh', '-c', 'exec 2>&1; exec "$@"', 'sh'];

/**
 * Runs the command with its standard output and standard error on one pipe, as a terminal
 * interleaves them, reading it into `capture` as it comes (bounded memory, nothing on disk, no
 * temporary folder needed: a read-only sandbox is fine). A process the command leaves in the
 * background holding the pipe does not keep the run waiting: reading stops shortly after the
 * command exits, as a terminal's prompt comes back.
 */
async function runChild(command: string[], io: CliIo, capture: OutputCapture): Promise<number> {
  const child = spawn(LAUNCH[0] as string, [...LAUNCH.slice(1), ...command], {
    stdio: [io.stdin === process.stdin ? 'inherit' : 'pipe', 'pipe', 'ignore'],
    env: io.env,
  });
  if (io.stdin !== process.stdin && child.stdin) {
    io.stdin.pipe(child.stdin);
    child.stdin.on('error', () => {}); // the command may exit without reading its input
  }
  const out = child.stdout as NodeJS.ReadableStream & { destroy(): void };
  out.on('data', (chunk: Buffer) => capture.push(chunk));
  const ended = new Promise<void>((resolve) => {
    out.on('end', resolve);
    out.on('close', resolve);
  });
  const unforward = forwardSignals(child);
  const status = await new Promise<number>((resolve, reject) => {
    child.on('error', (err) =>
      reject(new SpillwayError('SPILLWAY_IO', `cannot start ${command[0]}: ${err.message}`)),
    );
    child.on('exit', (code, signal) => resolve(statusOf(code, signal)));
  }).finally(unforward);
  let drained: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise((r) => (drained = setTimeout(r, DRAIN_AFTER_EXIT_MS)))]);
  clearTimeout(drained);
  out.destroy();
  return status;
}

/** Stashes and collapses `raw` within RUN_MAX_CHARS, and records it where /stats and the dashboard find it. */
async function collapseForClients(
  raw: Buffer,
  values: { tokens?: string; tokenizer?: string; dir?: string; store?: string },
  env: NodeJS.ProcessEnv,
) {
  const budget = budgetOption('--tokens', values.tokens, 'tokens') ?? SOURCE_MAX_TOKENS;
  return withStore(values, env, async (store) => {
    const options = { store, budget, charLimit: RUN_MAX_CHARS, tokenizer: values.tokenizer, tool: 'run' };
    const out = await collapseWithin(raw, options);
    if (out.step === 'acted' && out.id !== undefined && out.stashError === undefined)
      await recordAtSource(store, {
        at: new Date().toISOString(),
        by: 'run',
        how: 'collapse',
        whole: Math.ceil(raw.length / 4),
        shown: Math.ceil(Buffer.byteLength(out.text) / 4),
        id: out.id,
      });
    return out;
  });
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const split = splitCommand(argv, VALUE_OPTIONS);
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
  budgetOption('--tokens', values.tokens, 'tokens');
  getTokenizer(values.tokenizer);
  const capture = new OutputCapture(MAX_CAPTURE_BYTES);
  const status = await runChild(command, io, capture);
  const raw = capture.joined(
    (dropped) =>
      `\n[spillway run: ${dropped} bytes in the middle of this output were past the ${MAX_CAPTURE_BYTES}-byte limit and were not kept]\n`,
  );
  // Nothing is lost: an output that cannot be stashed (or recalled later) goes out whole now,
  // its own bytes.
  const whole = async (why: string) => {
    await write(io.stdout, raw);
    await write(io.stderr, `spillway run: the output was not shortened: ${why}\n`);
    return status;
  };
  let out: Awaited<ReturnType<typeof collapseForClients>>;
  try {
    out = await collapseForClients(raw, values, io.env);
  } catch (err) {
    return whole((err as Error).message);
  }
  if (out.stashError !== undefined) return whole(`the original could not be stashed (${out.stashError})`);
  await write(io.stdout, out.text);
  return status;
}
