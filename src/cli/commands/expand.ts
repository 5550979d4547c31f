import { SpillwayError } from '../../errors.js';
import { recall, recallAll } from '../../store/recall.js';
import { intOption, parseCommandArgs } from '../args.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const EXPAND_HELP = `usage: spillway expand ID [--offset N | --all] [--dir D]

Prints a saved output: ID is "SESSION/CALL" for a capped output, or the id a marker names
for a stashed one. Without --all, prints one page of at most 48 KiB followed by
"[bytes A-B of N; call spillway_expand with offset B for more]".

  --offset N     start at byte N (from a previous page's footer)
  --all          print the original bytes exactly, and nothing else
${STORE_HELP}
  -h, --help     show this help
`;

export async function expandCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('expand', argv, {
    offset: { type: 'string' },
    all: { type: 'boolean' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, EXPAND_HELP);
    return 0;
  }
  const [id, ...extra] = positionals;
  if (id === undefined)
    throw new SpillwayError('SPILLWAY_USAGE', 'expand needs an ID (SESSION/CALL, or a stash id)');
  if (extra.length > 0)
    throw new SpillwayError('SPILLWAY_USAGE', `expand takes one ID, got ${positionals.length}`);
  if (values.all && values.offset !== undefined)
    throw new SpillwayError('SPILLWAY_USAGE', 'give --offset N or --all, not both');
  return withStore(values, io.env, async (store) => {
    if (values.all) {
      const body = await recallAll(id, { store });
      await new Promise<void>((resolve, reject) =>
        io.stdout.write(body, (err) => (err ? reject(err) : resolve())),
      );
      return 0;
    }
    const page = await recall(id, { store, offset: intOption('--offset', values.offset) ?? 0 });
    await write(io.stdout, `${page.text}\n`);
    return 0;
  });
}
