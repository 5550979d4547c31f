import { SpillwayError } from '../../errors.js';
import { snip, type Unit } from '../../text/index.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { budgetOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputText, write } from '../io.js';

export const SNIP_HELP =
  helpText(`usage: spillway snip [--bytes N | --chars N | --tokens N] [--tokenizer T] [--note TEXT]
                    [--head-ratio R] [--graphemes] [FILE]

Cuts FILE (or standard input) to a budget, keeping its head and tail around a marker
"[...snipped N UNIT...]" that says exactly how much was removed. Input at or under the
budget is printed unchanged.

  --bytes N        budget in UTF-8 bytes (default: --bytes 32768)
  --chars N        budget in Unicode code points
  --tokens N       budget in tokens of --tokenizer
  --tokenizer T    o200k (default), cl100k or heuristic (bytes/4)
  --note TEXT      put TEXT in the marker (why the middle is gone, how to get it)
  --head-ratio R   share of the kept room given to the head, 0..1 (default 0.5)
  --graphemes      keep grapheme clusters (emoji, accents) whole at the cuts
  -h, --help       show this help

examples:
  make 2>&1 | spillway snip --tokens 2000
  spillway snip --bytes 4096 --note "full log in build.log" build.log
`);

export async function snipCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('snip', argv, {
    bytes: { type: 'string' },
    chars: { type: 'string' },
    tokens: { type: 'string' },
    tokenizer: { type: 'string' },
    note: { type: 'string' },
    'head-ratio': { type: 'string' },
    graphemes: { type: 'boolean' },
  });
  if (values.help) {
    await write(io.stdout, SNIP_HELP);
    return 0;
  }
  const given = (['bytes', 'chars', 'tokens'] as const).filter((u) => values[u] !== undefined);
  if (given.length > 1)
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `give one budget, not ${given.map((u) => `--${u}`).join(' and ')}`,
    );
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `snip takes one FILE, got ${positionals.length}`);
  const unit: Unit = given[0] ?? 'bytes';
  const budget = budgetOption(`--${unit}`, values[unit], unit) ?? 32_768;
  let headRatio: number | undefined;
  if (values['head-ratio'] !== undefined) {
    headRatio = Number(values['head-ratio']);
    if (!Number.isFinite(headRatio) || headRatio < 0 || headRatio > 1) {
      throw new SpillwayError(
        'SPILLWAY_USAGE',
        `--head-ratio must be a number from 0 to 1, got "${values['head-ratio']}"`,
      );
    }
  }
  if (values.tokenizer !== undefined && unit !== 'tokens') {
    throw new SpillwayError('SPILLWAY_USAGE', '--tokenizer only applies with --tokens N');
  }
  const tokenizer = unit === 'tokens' ? getTokenizer(values.tokenizer) : undefined;
  const text = await readInputText(io, positionals[0]);
  await write(
    io.stdout,
    snip(text, { budget, unit, tokenizer, note: values.note, headRatio, graphemes: values.graphemes }),
  );
  return 0;
}
