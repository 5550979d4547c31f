import { SpillwayError } from '../../errors.js';
import { collapseText } from '../../pipeline/stages/collapse.js';
import { stashKey } from '../../store/ids.js';
import { stashId } from '../../store/stash.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { type CliIo, readInputBytes, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const COLLAPSE_HELP = `usage: spillway collapse [--tokens N] [--head-lines N] [--tail-lines N] [--tokenizer T]
                        [--dir D] [--json] [FILE]

Collapses FILE (or standard input) to at most N tokens: the first and last lines around a
marker when that at least halves the size and fits, else a head and tail of characters fitted
exactly to the budget. The full original is stashed; the marker's <<sw:ID>> names the id for
"spillway expand ID". Input within the budget is printed unchanged.

  --tokens N       token budget (default 2000)
  --head-lines N   lines kept at the start by the line window (default 20)
  --tail-lines N   lines kept at the end (default 20)
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
  const maxTokens = intOption('--tokens', values.tokens) ?? 2000;
  const headLines = intOption('--head-lines', values['head-lines']) ?? 20;
  const tailLines = intOption('--tail-lines', values['tail-lines']) ?? 20;
  const tokenizer = getTokenizer(values.tokenizer);
  const raw = await readInputBytes(io, positionals[0]);
  const text = raw.toString('utf8');
  const id = stashId(raw);
  let stashError: unknown;
  const out = await withStore(values, io.env, (store) =>
    collapseText(
      text,
      { resolvedMaxTokens: maxTokens, headLines, tailLines },
      {
        tokenizer,
        id: () => id,
        stash: async () => {
          try {
            await store.putIfAbsent(stashKey(id), raw);
          } catch (err) {
            stashError = err;
            throw err;
          }
        },
        ...(store.pathOf ? { pathOf: (i: string) => store.pathOf?.(stashKey(i)) } : {}),
      },
    ),
  );
  const result = out.action === 'acted' ? out.text : text;
  if (values.json) {
    const tokensBefore = tokenizer.count(text);
    await write(
      io.stdout,
      `${JSON.stringify({
        action: out.action,
        reason: out.action === 'declined' ? out.reason : (out.fallback ?? null),
        window: out.action === 'acted' ? out.window : null,
        id: out.action === 'acted' ? (out.id ?? null) : null,
        tokensBefore,
        tokensAfter: out.action === 'acted' ? tokenizer.count(result) : tokensBefore,
        text: result,
      })}\n`,
    );
  } else {
    await write(io.stdout, result);
  }
  if (stashError) {
    await write(
      io.stderr,
      `spillway: the original could not be stashed (${(stashError as Error).message}); the output was snipped and cannot be recalled\n`,
    );
    return 1;
  }
  return 0;
}
