import {
  CLIENT_KEYS,
  type HookInput,
  isClientKey,
  loadClient,
  loadClients,
  spillwayCommand,
} from '../../clients/index.js';
import { SpillwayError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import { parseCommandArgs } from '../args.js';
import { helpText, termList } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, storeFromOptions } from '../store-option.js';

/** The help, from each client's spec (loaded only for it: a hook runs after every shell command). */
export async function hookHelp(): Promise<string> {
  return helpText(`usage: spillway hook ${CLIENT_KEYS.join('|')} [--dir D | --store URL]

The hook a client runs after its shell tool ("spillway setup CLIENT" installs it). Reads the
client's hook JSON on standard input and prints the client's answer, or nothing to leave the
result as it is. A hook never changes the command, so the client's rules, approvals, sandbox
and the user's shell judge and run the command the model wrote:
${termList((await loadClients()).map((c) => [c.key, c.hookHelp]))}
A hook never fails the client's tool call: on any error it prints nothing and exits 0, with the
reason on standard error.

${STORE_HELP}
  -h, --help     show this help
`);
}

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
    await write(io.stdout, await hookHelp());
    return 0;
  }
  const name = positionals[0];
  if (positionals.length !== 1 || !isClientKey(name))
    throw new SpillwayError('SPILLWAY_USAGE', `hook takes one client: ${CLIENT_KEYS.join(', ')}`);
  let store: Store | undefined;
  try {
    const [handler, input] = await Promise.all([
      loadClient(name).then((client) => client.hook()),
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
