import { claudeHook } from '../../clients/claude.js';
import type { HookContext, HookInput } from '../../clients/hook-io.js';
import { codexHook, geminiHook } from '../../clients/shell-hooks.js';
import { spillwayCommand } from '../../clients/spillway-command.js';
import { SpillwayError } from '../../errors.js';
import { parseCommandArgs } from '../args.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, storeFromOptions } from '../store-option.js';

export const HOOK_HELP = `usage: spillway hook claude|codex|gemini [--dir D | --store URL]

The hook a client runs around its shell tool ("spillway setup CLIENT" installs it). Reads the
client's hook JSON on standard input and prints the client's answer, or nothing to leave the
call as it is:
  claude  PostToolUse on Bash: when Claude Code saved a long output to a file and sent only a
          preview, stashes that file and sends the model a collapse of it instead
  codex   PreToolUse on Bash: runs the command through "spillway run"
  gemini  BeforeTool on run_shell_command: runs the command through "spillway run"
A hook never fails the client's tool call: on any error it prints nothing and exits 0, with the
reason on standard error.

${STORE_HELP}
  -h, --help     show this help
`;

const HANDLERS: Record<
  string,
  (input: HookInput, ctx: HookContext) => Promise<object | undefined> | object | undefined
> = { claude: claudeHook, codex: codexHook, gemini: geminiHook };

/** Hook input is a small JSON object (Claude Code's carries at most a 30,000-character preview). */
const MAX_HOOK_INPUT_BYTES = 8 * 1024 * 1024;

async function readHookInput(stream: NodeJS.ReadableStream): Promise<HookInput> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > MAX_HOOK_INPUT_BYTES) throw new Error(`hook input over ${MAX_HOOK_INPUT_BYTES} bytes`);
    chunks.push(b);
  }
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('hook input is not a JSON object');
  return parsed as HookInput;
}

export async function hookCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('hook', argv, { ...STORE_OPTIONS });
  if (values.help) {
    await write(io.stdout, HOOK_HELP);
    return 0;
  }
  const handler =
    positionals.length === 1 && Object.hasOwn(HANDLERS, positionals[0] as string)
      ? HANDLERS[positionals[0] as string]
      : undefined;
  if (!handler)
    throw new SpillwayError('SPILLWAY_USAGE', `hook takes one client: ${Object.keys(HANDLERS).join(', ')}`);
  let store: Awaited<ReturnType<typeof storeFromOptions>> | undefined;
  try {
    const input = await readHookInput(io.stdin);
    const answer = await handler(input, {
      env: io.env,
      spillway: spillwayCommand(),
      store: async () => {
        store ??= await storeFromOptions(values, io.env);
        return store;
      },
    });
    if (answer) await write(io.stdout, `${JSON.stringify(answer)}\n`);
  } catch (err) {
    // The client's tool call goes on unchanged; the reason goes to the client's hook log.
    await write(io.stderr, `spillway hook ${positionals[0]}: ${(err as Error).message}\n`);
  } finally {
    await store?.close?.();
  }
  return 0;
}
