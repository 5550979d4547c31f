import { SpillwayError } from '../../errors.js';
import { defaultBase } from '../../home/index.js';
import { applyRetention } from '../../store/backends/index.js';
import { assertIdPart } from '../../store/index.js';
import { parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS } from '../store-option.js';

export const PRUNE_HELP =
  helpText(`usage: spillway prune [--dir D | --store URL] [--keep SESSION] [--dry-run] [--json]

Applies retention to the file store: stash entries older than 30 days expire one by one;
sessions whose newest file is older than 30 days are removed; then, while the store is over
its 1 GiB total, the oldest sessions idle for 15 minutes or more. SESSION, and sessions that
wrote in the last 15 minutes, always survive. Only files spillway wrote are removed;
symbolic links are never followed.

${STORE_HELP}
  --keep SESSION never remove this session
  --dry-run      say what would be removed, remove nothing
  --json         print {"removed":[{"path","bytes","reason"}],"freedBytes","remainingBytes"}
  -h, --help     show this help
`);

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export async function pruneCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('prune', argv, {
    keep: { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, PRUNE_HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `prune takes no arguments, got "${positionals.join(' ')}"; use --dir D`,
    );
  }
  if (values.keep !== undefined) assertIdPart('session', values.keep);
  if (values.store !== undefined) {
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      'prune applies to the file store; a Redis store expires entries by TTL with the same retention',
    );
  }
  const base = values.dir ?? defaultBase(io.env);
  const dryRun = values['dry-run'] ?? false;
  // Over a large store a scan takes a while: say so on a terminal, and clear the line after.
  const progress = io.stderr as NodeJS.WritableStream & { isTTY?: boolean };
  if (progress.isTTY) progress.write(`scanning ${base} ...`);
  const report = await applyRetention(base, { keep: values.keep, dryRun });
  if (progress.isTTY) progress.write('\r\x1b[K');
  if (values.json) {
    await write(io.stdout, `${JSON.stringify(report)}\n`);
    return 0;
  }
  const verb = dryRun ? 'would remove' : 'removed';
  const lines = report.removed.map(
    (r) => `${verb} ${r.path} (${r.bytes} bytes, ${r.reason.replaceAll('_', ' ')})`,
  );
  for (const dir of report.leftAlone) lines.push(`left alone ${dir} (not a spillway session directory)`);
  lines.push(
    report.removed.length === 0
      ? `nothing to prune in ${base}; ${report.remainingBytes} bytes (${mib(report.remainingBytes)}) kept`
      : `${dryRun ? 'would free' : 'freed'} ${report.freedBytes} bytes (${mib(report.freedBytes)}); ${report.remainingBytes} bytes (${mib(report.remainingBytes)}) ${dryRun ? 'would remain' : 'remain'}`,
  );
  await write(io.stdout, `${lines.join('\n')}\n`);
  return 0;
}
