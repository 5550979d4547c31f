import { SpillwayError } from '../../errors.js';
import { DEFAULT_EXPAND_TOKENS, DEFAULT_GREP_CONTEXT, expand, recallAll } from '../../store/recall/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const EXPAND_HELP =
  helpText(`usage: spillway expand ID [--grep P [--context N] [--ignore-case] | --lines A-B | --offset N]
                       [--field /PTR] [--max-tokens N] [--all] [--dir D | --store URL]

Prints a saved output: ID is "SESSION/CALL" for a capped output, or the id a marker names for
a stashed one (as printed, "<<sw:ID>>" included; ids may start with "-").

  --grep P         the lines matching the regular expression P, numbered, with context
  --context N      lines of context around each match (default ${DEFAULT_GREP_CONTEXT})
  --ignore-case    match P without regard to case
  --lines A-B      lines A to B, numbered ("120-180", "500-" to the end, or "42")
  --offset N       a page from byte N (from a previous page's footer)
  --field /PTR     with --grep or --lines: the lines of the string at this JSON pointer
                   ("/stdout") in a JSON output, as its collapse numbered them
  --max-tokens N   the most tokens to print (default ${DEFAULT_EXPAND_TOKENS})
  --all            print the original bytes exactly, and nothing else
${STORE_HELP}
  -h, --help       show this help

Without --grep, --lines or --all it prints the first page, whose footer gives the total lines
and bytes and the offset of the next page.
`);

const OPTIONS = {
  grep: { type: 'string' },
  context: { type: 'string' },
  'ignore-case': { type: 'boolean' },
  lines: { type: 'string' },
  field: { type: 'string' },
  offset: { type: 'string' },
  'max-tokens': { type: 'string' },
  all: { type: 'boolean' },
  ...STORE_OPTIONS,
} as const;

/**
 * Stash ids are base64url and one in 64 starts with "-": such an argument is the ID, not an
 * option (unless it is the value of the option before it). Moved after "--" for parseArgs.
 */
function idsAfterDashes(argv: string[]): string[] {
  const takesValue = new Set(
    Object.entries(OPTIONS)
      .filter(([, o]) => o.type === 'string')
      .map(([name]) => `--${name}`),
  );
  const rest: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      ids.push(...argv.slice(i + 1));
      break;
    }
    const isValue = i > 0 && takesValue.has(argv[i - 1] as string);
    if (!isValue && /^-[A-Za-z0-9_][A-Za-z0-9_-]{6,}$/.test(arg)) ids.push(arg);
    else rest.push(arg);
  }
  return ids.length ? [...rest, '--', ...ids] : rest;
}

export async function expandCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('expand', idsAfterDashes(argv), OPTIONS);
  if (values.help) {
    await write(io.stdout, EXPAND_HELP);
    return 0;
  }
  const [id, ...extra] = positionals;
  if (id === undefined)
    throw new SpillwayError('SPILLWAY_USAGE', 'expand needs an ID (SESSION/CALL, or a stash id)');
  if (extra.length > 0)
    throw new SpillwayError('SPILLWAY_USAGE', `expand takes one ID, got ${positionals.length}`);
  const asked = ['grep', 'lines', 'offset', 'all'].filter(
    (k) => values[k as keyof typeof values] !== undefined,
  );
  if (asked.length > 1)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `give one of --grep, --lines, --offset and --all, got ${asked.map((a) => `--${a}`).join(' and ')}`,
    );
  return withStore(values, io.env, async (store) => {
    if (values.all) {
      const body = await recallAll(id, { store });
      await new Promise<void>((resolve, reject) =>
        io.stdout.write(body, (err) => (err ? reject(err) : resolve())),
      );
      return 0;
    }
    const text = await expand(store, {
      id,
      grep: values.grep,
      context: intOption('--context', values.context),
      ignoreCase: values['ignore-case'],
      lines: values.lines,
      field: values.field,
      pageSize: intOption('--max-tokens', values['max-tokens'], 100),
      offset: intOption('--offset', values.offset),
    });
    await write(io.stdout, `${text}\n`);
    return 0;
  });
}
