import { SpillwayError } from '../../errors.js';
import { cap, DEFAULT_CAP_BYTES } from '../../store/index.js';
import { budgetOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputBytes, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const CAP_HELP =
  helpText(`usage: spillway cap --session S --call C [--bytes N] [--dir D | --store URL] [--json] [FILE]

Caps FILE (or standard input) at N bytes. Over the cap, the full output is saved to
{base}/S/C.txt (private, atomic) and the printed text keeps its head and tail around a
marker naming the total size, the file and the recall id "S/C" (spillway expand S/C).
If the output cannot be saved, the text is still capped, with a note saying how to get the
missing part, and spillway exits 1 after printing it.

  --session S    session id: 1-128 of A-Z a-z 0-9 _ -
  --call C       tool call id: same alphabet
  --bytes N      cap in UTF-8 bytes (default ${DEFAULT_CAP_BYTES})
${STORE_HELP}
  --json         print {"capped","id","path","bytes"} plus the text as "text"
  -h, --help     show this help
`);

export async function capCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('cap', argv, {
    session: { type: 'string' },
    call: { type: 'string' },
    bytes: { type: 'string' },
    json: { type: 'boolean' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, CAP_HELP);
    return 0;
  }
  if (values.session === undefined || values.call === undefined) {
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      'cap needs --session S and --call C (they name the saved output)',
    );
  }
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `cap takes one FILE, got ${positionals.length}`);
  const maxBytes = budgetOption('--bytes', values.bytes, 'bytes') ?? DEFAULT_CAP_BYTES;
  const input = await readInputBytes(io, positionals[0]);
  const { session, call } = values;
  const result = await withStore(values, io.env, (store) => cap(input, { maxBytes, session, call, store }));
  if (values.json) {
    const { capped, id = null, path = null, bytes, text } = result;
    await write(
      io.stdout,
      `${JSON.stringify({ capped, id, path, bytes, text, error: result.error?.message ?? null })}\n`,
    );
  } else {
    await write(io.stdout, result.text);
  }
  if (result.error) {
    await write(io.stderr, `spillway: the full output could not be saved: ${result.error.message}\n`);
    return 1;
  }
  return 0;
}
