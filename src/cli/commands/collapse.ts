import { SpillwayError } from '../../errors.js';
import { resolvePipeline } from '../../pipeline/config.js';
import { ConversationEngine } from '../../pipeline/conversation.js';
import { DEFAULT_COLLAPSE_MAX_TOKENS, DEFAULT_WINDOW_LINES } from '../../pipeline/stages/collapse/index.js';
import { decodeUtf8 } from '../../text/measure.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { type CliIo, readInputBytes, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const COLLAPSE_HELP = `usage: spillway collapse [--tokens N] [--head-lines N] [--tail-lines N] [--tokenizer T]
                        [--dir D] [--json] [FILE]

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
`;

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
  // The collapse stage alone, through the engine: the runner's guarantees, one stash function.
  const pipeline = resolvePipeline({
    stages: [
      {
        name: 'collapse',
        maxTokens: intOption('--tokens', values.tokens) ?? DEFAULT_COLLAPSE_MAX_TOKENS,
        headLines: intOption('--head-lines', values['head-lines']) ?? DEFAULT_WINDOW_LINES,
        tailLines: intOption('--tail-lines', values['tail-lines']) ?? DEFAULT_WINDOW_LINES,
      },
    ],
    tokenizer: getTokenizer(values.tokenizer).name,
  });
  const raw = await readInputBytes(io, positionals[0]);
  const input = {
    id: 'stdin',
    tool: '',
    content: decodeUtf8(raw),
    position: 0,
    // The stash keeps the bytes as read, even where they are not valid UTF-8.
    originalBytes: raw,
  };
  const turn = await withStore(values, io.env, (store) =>
    new ConversationEngine({ pipeline, store }).turn({ results: [input], messageCount: 1 }),
  );
  const outcome = turn.outcomes[0];
  const step = outcome?.trail.find((t) => t.stage === 'collapse')?.outcome ?? 'below_max_tokens';
  const acted = step === 'acted' || step === 'stash_failed';
  const text = turn.results[0]?.content as string;
  if (values.json) {
    await write(
      io.stdout,
      `${JSON.stringify({
        action: acted ? 'acted' : 'declined',
        reason: step === 'acted' ? null : step,
        window: acted ? (outcome?.detail?.window ?? null) : null,
        id: outcome?.stashId ?? null,
        tokensBefore: outcome?.tokensBefore,
        tokensAfter: outcome?.tokensAfter,
        text,
      })}\n`,
    );
  } else {
    await write(io.stdout, text);
  }
  const stashError = outcome?.detail?.stashError;
  if (stashError !== undefined) {
    await write(
      io.stderr,
      `spillway: the original could not be stashed (${stashError}); the output was snipped and cannot be recalled\n`,
    );
    return 1;
  }
  return 0;
}
