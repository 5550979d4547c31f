import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SpillwayError } from '../../errors.js';
import { formatTokenCount, snipDetailed, utf8Length } from '../../text/index.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { budgetOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputText, write } from '../io.js';

export const DEMO_HELP = helpText(`usage: spillway demo [--tokens N] [--tokenizer T] [FILE]

Shows what spillway does to a large tool result: it runs a real program with a large
output (node --v8-options, ~90 KB) or reads FILE, snips it to N tokens (default 600), prints
the result, and reports the token counts before and after.

  --tokens N      budget in tokens (default 600)
  --tokenizer T   o200k (default), cl100k or heuristic
  -h, --help      show this help
`);

const run = promisify(execFile);

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('demo', argv, {
    tokens: { type: 'string' },
    tokenizer: { type: 'string' },
  });
  if (values.help) {
    await write(io.stdout, DEMO_HELP);
    return 0;
  }
  const budget = budgetOption('--tokens', values.tokens, 'tokens') ?? 600;
  const tokenizer = getTokenizer(values.tokenizer);
  let source: string;
  let text: string;
  if (positionals[0] !== undefined) {
    source = positionals[0];
    text = await readInputText(io, source);
  } else {
    source = `${process.execPath} --v8-options`;
    try {
      text = (await run(process.execPath, ['--v8-options'], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    } catch (err) {
      throw new SpillwayError('SPILLWAY_IO', `could not run "${source}": ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  const before = tokenizer.count(text);
  const started = performance.now();
  const result = snipDetailed(text, { budget, unit: 'tokens', tokenizer });
  const ms = performance.now() - started;
  const after = tokenizer.count(result.text);
  const rule = '-'.repeat(72);
  await write(
    io.stdout,
    `${rule}\n${result.text}\n${rule}\n` +
      `source:  ${source}\n` +
      `before:  ${before} tokens (${formatTokenCount(before)}), ${utf8Length(text)} bytes\n` +
      `after:   ${after} tokens (${formatTokenCount(after)}), ${utf8Length(result.text)} bytes, budget ${budget} ${tokenizer.name} tokens\n` +
      `removed: ${result.removed} tokens from the middle in ${ms.toFixed(1)} ms; head and tail kept verbatim\n`,
  );
  return 0;
}
