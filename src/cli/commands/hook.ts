import type { HookContext, HookInput } from '../../clients/hook-io.js';
import { spillwayCommand } from '../../clients/spillway-command.js';
import { SpillwayError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { parseCommandArgs } from '../args.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, storeFromOptions } from '../store-option.js';

export const HOOK_HELP = `usage: spillway hook claude|codex|gemini [--dir D | --store URL]

The hook a client runs after its shell tool ("spillway setup CLIENT" installs it). Reads the
client's hook JSON on standard input and prints the client's answer, or nothing to leave the
result as it is. A hook never changes the command, so the client's rules, approvals, sandbox
and the user's shell judge and run the command the model wrote:
  claude  PostToolUse on Bash: when Claude Code saved a long output to a file and sent only a
          preview, stashes that file and sends the model a collapse of it instead
  codex   PostToolUse on Bash: when Codex cut an output and its whole was captured (setup's
          BASH_ENV capture), stashes it and sends the model a collapse no longer than Codex's cut
  gemini  AfterTool on run_shell_command: when Gemini CLI will show only the head and tail of an
          output, stashes it and adds the lines that matter from the part left out, and the
          recall id
A hook never fails the client's tool call: on any error it prints nothing and exits 0, with the
reason on standard error.

${STORE_HELP}
  -h, --help     show this help
`;

type Handler = (input: HookInput, ctx: HookContext) => Promise<object | undefined>;

// Each handler is loaded only for its own client, and loads the collapse only for an output it
// acts on: a hook runs after every shell command, most of them small.
const HANDLERS: Record<string, () => Promise<Handler>> = {
  claude: () => import('../../clients/claude.js').then((m) => m.claudeHook),
  codex: () => import('../../clients/codex.js').then((m) => m.codexHook),
  gemini: () => import('../../clients/gemini.js').then((m) => m.geminiHook),
};

/**
 * Hook input is one JSON object; Gemini CLI's carries the whole output of the command, so the
 * bound is the largest output a hook will read (past it, the client's own result stands).
 */
const MAX_HOOK_INPUT_BYTES = 128 * 1024 * 1024;

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
  const name = positionals[0] as string;
  if (positionals.length !== 1 || !Object.hasOwn(HANDLERS, name))
    throw new SpillwayError('SPILLWAY_USAGE', `hook takes one client: ${Object.keys(HANDLERS).join(', ')}`);
  let store: Store | undefined;
  try {
    const [handler, input] = await Promise.all([
      (HANDLERS[name] as () => Promise<Handler>)(),
      readHookInput(io.stdin),
    ]);
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
    await write(io.stderr, `spillway hook ${name}: ${(err as Error).message}\n`);
  } finally {
    await store?.close?.();
  }
  return 0;
}
