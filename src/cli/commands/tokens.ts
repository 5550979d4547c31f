import { SpillwayError } from '../../errors.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputText, write } from '../io.js';

export const TOKENS_HELP = helpText(`usage: spillway tokens [--tokenizer T] [FILE]

Counts the tokens of FILE (or standard input) and prints the count as a bare integer.
Special-token strings such as <|endoftext|> are counted as plain text.

  --tokenizer T   o200k (default; GPT-4o/4.1/5, o-series), cl100k (GPT-4, GPT-3.5)
                  or heuristic (ceil(bytes / 4), fast and dependency-free)
  -h, --help      show this help
`);

export async function tokensCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('tokens', argv, { tokenizer: { type: 'string' } });
  if (values.help) {
    await write(io.stdout, TOKENS_HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `tokens takes one FILE, got ${positionals.length}`);
  const tokenizer = getTokenizer(values.tokenizer);
  const text = await readInputText(io, positionals[0]);
  await write(io.stdout, `${tokenizer.count(text)}\n`);
  return 0;
}
