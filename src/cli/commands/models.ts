import { SpillwayError } from '../../errors.js';
import { DEFAULT_MODEL_WINDOW, formatTokenCount, lookupModelLimit, MODEL_WINDOWS } from '../../text/index.js';
import { parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';

export const MODELS_HELP = helpText(`usage: spillway models [--json] [NAME]

With NAME, prints that model's context window in tokens. Provider prefixes and dates are
understood (openai/gpt-4o, us.anthropic.claude-3-5-sonnet-20240620-v1:0, claude-sonnet-4-5[1m]).
An unknown NAME prints the conservative default and says it was not found (exit 0: a local
model's window is whatever its server was started with). Without NAME, lists the table.

  --json       print {"name","limit","found","matched"} (or the whole table)
  -h, --help   show this help
`);

export async function modelsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('models', argv, { json: { type: 'boolean' } });
  if (values.help) {
    await write(io.stdout, MODELS_HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `models takes one NAME, got ${positionals.length}`);
  const name = positionals[0];
  if (name === undefined) {
    if (values.json) {
      await write(
        io.stdout,
        `${JSON.stringify({ models: MODEL_WINDOWS, default: DEFAULT_MODEL_WINDOW }, null, 2)}\n`,
      );
      return 0;
    }
    const width = Math.max(...Object.keys(MODEL_WINDOWS).map((k) => k.length));
    const rows = Object.entries(MODEL_WINDOWS).map(
      ([k, v]) => `${k.padEnd(width)}  ${String(v).padStart(10)}  ${formatTokenCount(v)}`,
    );
    await write(io.stdout, `${rows.join('\n')}\n(unknown models: ${DEFAULT_MODEL_WINDOW})\n`);
    return 0;
  }
  const found = lookupModelLimit(name);
  if (values.json) {
    await write(io.stdout, `${JSON.stringify({ name, ...found })}\n`);
  } else if (found.found) {
    await write(
      io.stdout,
      `${name}: ${found.limit} tokens (${formatTokenCount(found.limit)}), as ${found.matched}\n`,
    );
  } else if (found.local) {
    await write(
      io.stdout,
      `${name}: a local model; its window is however it is served (Ollama's num_ctx, LM Studio's context length), not its name; using the conservative default of ${found.limit} tokens (${formatTokenCount(found.limit)}); give --window N where a command takes one\n`,
    );
  } else {
    await write(
      io.stdout,
      `${name}: not found in the model table; using the conservative default of ${found.limit} tokens (${formatTokenCount(found.limit)})\n`,
    );
  }
  return 0;
}
