import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SpillwayError } from '../../errors.js';
import { openRegularFile } from '../../home/index.js';
import {
  type ReplayReport,
  ReportBuilder,
  renderHtmlReport,
  renderSummary,
  replayConversation,
  TRANSCRIPT_FORMATS,
} from '../../replay/index.js';
import { escapeControls, readTranscript } from '../../replay/readers/index.js';
import { DEFAULT_MODEL_WINDOW, lookupModelLimit } from '../../text/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { CONFIG_HELP, CONFIG_OPTIONS, configFromOptions } from '../config-options.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';

export const REPLAY_HELP =
  helpText(`usage: spillway replay FILE... [--preset P] [--config FILE] [--window N | --model NAME]
                      [--format F] [--json] [--report out.html]

Replays agent transcripts turn by turn, as the proxy would see them (frozen decisions, the
cached-prefix boundary), and reports what spillway would do: tool-result tokens before and
after, per stage and per tool, the largest results, requests over the model's window, an
input-cost estimate under prompt caching, and three checks that must be 0 (budget violations,
markers that do not recall their original, rewrites of the cached prefix). Nothing is sent
anywhere and nothing is written but the report. A file that cannot be read is reported and
skipped, the others are replayed, and the exit status is 1 (as when a check fails).

Formats (detected from the content): ${TRANSCRIPT_FORMATS.join(', ')}.

${CONFIG_HELP}
  --window N     the model's context window in tokens (default: the transcript's model, else ${DEFAULT_MODEL_WINDOW})
  --model NAME   take the window from the model table
  --format F     read every FILE as this format instead of detecting it
  --json         print the report as JSON (totals, files, stages, tools, ...)
  --report FILE  also write a self-contained HTML report with charts
  -h, --help     show this help
`);

export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('replay', argv, {
    window: { type: 'string' },
    model: { type: 'string' },
    format: { type: 'string' },
    json: { type: 'boolean' },
    report: { type: 'string' },
    ...CONFIG_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, REPLAY_HELP);
    return 0;
  }
  if (positionals.length === 0)
    throw new SpillwayError('SPILLWAY_USAGE', 'replay needs at least one transcript FILE');
  if (values.window !== undefined && values.model !== undefined)
    throw new SpillwayError('SPILLWAY_USAGE', 'give --window N or --model NAME, not both');
  let window = intOption('--window', values.window, 1);
  if (values.model !== undefined) {
    const found = lookupModelLimit(values.model);
    if (!found.found)
      await write(
        io.stderr,
        `spillway: model "${values.model}" is not in the table; using ${found.limit} tokens (give --window N to set it)\n`,
      );
    window = found.limit;
  }
  const config = await configFromOptions(values);
  const builder = new ReportBuilder(config.preset, config.tokenizer.name, config.prices);
  // Every file is read first; one that cannot be is reported and skipped, the others replayed.
  const inputs = [];
  for (const file of positionals) {
    try {
      inputs.push(await readInput(file, values.format));
    } catch (err) {
      if (!SpillwayError.isInstance(err)) throw err;
      builder.skip(file, err.message);
      await write(io.stderr, `spillway: skipped ${err.message}\n`);
    }
  }
  if (inputs.length === 0)
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `none of the ${positionals.length} file(s) could be read; see above`,
    );
  const progress = io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  for (const [n, input] of inputs.entries()) {
    const replays = [];
    const modelOf = input.conversations.find((c) => c.model)?.model;
    const known = modelOf ? lookupModelLimit(modelOf) : undefined;
    const fileWindow = window ?? (known?.found ? known.limit : DEFAULT_MODEL_WINDOW);
    for (const conversation of input.conversations) {
      replays.push(
        await replayConversation(conversation, {
          config,
          ...(window ? { modelWindow: window } : {}),
          onTurn: progress.isTTY
            ? (turn, turns) =>
                progress.write(
                  `\rreplaying ${n + 1}/${inputs.length} ${basename(input.file)}: turn ${turn}/${turns}   `,
                )
            : undefined,
        }),
      );
    }
    builder.addFile(input.file, input.format, fileWindow, replays);
  }
  if (progress.isTTY) progress.write('\r\x1b[K');
  const report = builder.build();
  if (values.report) await writeReport(values.report, report);
  if (values.json) {
    await write(io.stdout, `${JSON.stringify(reportJson(report), null, 2)}\n`);
  } else {
    await write(io.stdout, renderSummary(report));
    if (values.report) await write(io.stdout, `report written to ${values.report}\n`);
  }
  const failed = report.totals.violations + report.totals.recallFailures + report.totals.prefixChanges;
  return failed === 0 && report.skipped.length === 0 ? 0 : 1;
}

/**
 * A transcript's text: only a regular file, never through a link (a link to /etc/shadow would
 * otherwise be read) and never a FIFO or a device (which would hang the batch).
 */
async function readRegularFile(file: string): Promise<string> {
  const opened = await openRegularFile(file);
  if ('refused' in opened)
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `cannot read ${JSON.stringify(escapeControls(file))}: ${opened.refused}`,
    );
  try {
    return await opened.handle.readFile('utf8');
  } finally {
    await opened.handle.close();
  }
}

async function readInput(file: string, format: string | undefined) {
  const text = await readRegularFile(file);
  const read = readTranscript(text, file, format);
  // A forced format that finds nothing measured nothing: that is not a green "0 results".
  if (format !== undefined && read.conversations.every((c) => c.turns.length === 0))
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `${file}: read as ${format}, it has no tool results; is it a ${format} transcript? (leave out --format to detect the format)`,
    );
  return { file, ...read };
}

/** Written beside its final name and renamed, so a reader never sees half a report. */
async function writeReport(path: string, report: ReplayReport): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, renderHtmlReport(report));
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw new SpillwayError('SPILLWAY_IO', `cannot write the report "${path}": ${(err as Error).message}`);
  }
}

/** What --json prints: the report less the full texts of the largest results. */
function reportJson(report: ReplayReport) {
  const { totals, files, stages, tools, priceModel, preset, tokenizer, failures, skipped } = report;
  const brief = (r: (typeof report.largestBefore)[number]) => ({
    id: r.id,
    tool: r.tool,
    turn: r.turn,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    actedBy: r.actedBy,
  });
  const largest = { before: report.largestBefore.map(brief), after: report.largestAfter.map(brief) };
  return {
    preset,
    tokenizer,
    priceModel,
    totals: { files: files.length, ...totals },
    failures,
    skipped,
    files,
    stages,
    tools,
    largest,
  };
}
