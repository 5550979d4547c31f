import {
  CLIENT_KEYS,
  doctor,
  isClientKey,
  loadClient,
  readSetup,
  setupStateDir,
} from '../../clients/index.js';
import { SpillwayError } from '../../errors.js';
import { parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { setupOptionsFor } from './setup.js';

export const DOCTOR_HELP = helpText(`usage: spillway doctor [${CLIENT_KEYS.join('|')}]

Checks each link between a client and spillway, and prints the fix for each that fails: the
entries "spillway setup" wrote are still in the client's files, the hook runs from a shell and
answers, "spillway mcp" answers initialize, the store is writable and private, and the proxy
answers when setup pointed the client at one. With no client, checks every client set up here.
Exits 1 when a check fails.

  -h, --help   show this help
`);

export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('doctor', argv, {});
  if (values.help) {
    await write(io.stdout, DOCTOR_HELP);
    return 0;
  }
  if (positionals.length > 1 || (positionals[0] !== undefined && !isClientKey(positionals[0])))
    throw new SpillwayError('SPILLWAY_USAGE', `doctor takes at most one client: ${CLIENT_KEYS.join(', ')}`);
  const options = setupOptionsFor(io, undefined);
  const stateDir = setupStateDir(options.env);
  const clients = positionals[0] ? [positionals[0]] : CLIENT_KEYS.filter((c) => readSetup(stateDir, c));
  if (clients.length === 0) {
    await write(
      io.stdout,
      `No client is set up for spillway here. Run: spillway setup ${CLIENT_KEYS.join('|')}\n`,
    );
    return 1;
  }
  let failed = 0;
  for (const key of clients) {
    const client = await loadClient(key);
    await write(io.stdout, `${client.name}:\n`);
    for (const check of await doctor(client, options)) {
      if (!check.ok) failed++;
      await write(
        io.stdout,
        `  ${check.ok ? '✓' : '✗'} ${check.what}\n${check.fix ? `      fix: ${check.fix}\n` : ''}`,
      );
    }
  }
  await write(io.stdout, failed ? `${failed} check(s) failed.\n` : 'Everything checks out.\n');
  return failed ? 1 : 0;
}
