import { collapseOutput, DEFAULT_COLLAPSE_MAX_TOKENS, DEFAULT_WINDOW_LINES } from '../../collapse/index.js';
import { SpillwayError } from '../../errors.js';
import { budgetOption, intOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputBytes, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const COLLAPSE_HELP =
  helpText(`usage: spillway collapse [--tokens N] [--head-lines N] [--tail-lines N] [--tokenizer T]
                        [--dir D | --store URL] [--json] [FILE]

Collapses FILE (or standard input) to at most N tokens, keeping what an agent acts on: a few
lines from each end, the errors, failures, exceptions, exit statuses, summaries, diagnostics
and warnings from anywhere (with a line of context), then as much of the head and tail as the
budget holds; runs of near-identical lines are folded, JSON is compacted by structure, and one
long line gets a character window. Each omitted run of lines is a marker with its line range;
the full original is stashed and <<sw:ID>> names the id for "spillway expand ID". Input within
the budget is printed unchanged.

  --tokens N       token budget (default ${DEFAULT_COLLAPSE_MAX_TOKENS})
  --head-lines N   head:tail is the ratio the two ends grow in (default ${DEFAULT_WINDOW_LINES}:${DEFAULT_WINDOW_LINES});
  --tail-lines N   0 and 0 give a character window
  --tokenizer T    o200k (default), cl100k or heuristic
${STORE_HELP}
  --json           print {"action","reason","window","id","tokensBefore","tokensAfter","text"}
  -h, --help       show this help
`);

export async function collapseCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('collapse', argv, {
    tokens: { type: 'string' },
    'head-lines': { type: 'string' },
    'tail-lines': { type: 'string' },
    tokenizer: { type: 'string' },
    json: { type: 'boolean' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, COLLAPSE_HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `collapse takes one FILE, got ${positionals.length}`);
  // Checked before the input is read or a store opened: a bad budget is refused at once.
  const budget = budgetOption('--tokens', values.tokens, 'tokens');
  const headLines = intOption('--head-lines', values['head-lines']);
  const tailLines = intOption('--tail-lines', values['tail-lines']);
  const raw = await readInputBytes(io, positionals[0]);
  const out = await withStore(values, io.env, (store) =>
    collapseOutput(raw, {
      store,
      budget,
      measure: true,
      headLines,
      tailLines,
      tokenizer: values.tokenizer,
    }),
  );
  const acted = out.step === 'acted';
  if (values.json) {
    await write(
      io.stdout,
      `${JSON.stringify({
        action: acted ? 'acted' : 'declined',
        reason: out.step === 'acted' ? null : out.step,
        window: acted ? (out.window ?? null) : null,
        id: out.id ?? null,
        tokensBefore: out.tokensBefore,
        tokensAfter: out.tokensAfter,
        text: out.text,
      })}\n`,
    );
  } else {
    await write(io.stdout, out.text);
  }
  const stashError = out.stashError;
  if (stashError !== undefined) {
    await write(
      io.stderr,
      `spillway: the original could not be stashed (${stashError}); the output is printed whole\n`,
    );
    return 1;
  }
  return 0;
}
