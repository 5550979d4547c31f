import { SpillwayError } from '../../errors.js';
import { isToolData, pruneSession, Session } from '../../session/index.js';
import { measureContent } from '../../text/index.js';
import { intOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';

export const SESSION_HELP = helpText(`usage: spillway session show FILE [--json]
       spillway session prune FILE [--threshold N] [--head N] [--tail N] [--protect-recent N]
                              [--dry-run] [--dir D | --store URL]

A session is an append-only JSONL log of conversation events (seq, op, data).
  show    prints every event: seq, role, tool, size in code points, and the seq of the
          event that shadows it (blank for what the model sees now)
  prune   replaces every tool result over the threshold with its head and tail around a marker,
          in place (appended replacement events; nothing is overwritten), and prints what it
          replaced and the saving; the removed middles are stashed for spillway expand

  --threshold N       results over N code points are pruned (default 8192)
  --head N, --tail N  code points kept at the start (default 4096) and end (default 1024)
  --protect-recent N  never prune the newest N tool results (default 0)
  --dry-run           say what would be replaced, change nothing
${STORE_HELP}
  -h, --help          show this help
`);

export async function sessionCommand(argv: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === '-h' || action === '--help') {
    await write(io.stdout, SESSION_HELP);
    return action === undefined ? 2 : 0;
  }
  const { values, positionals } = parseCommandArgs('session', rest, {
    json: { type: 'boolean' },
    threshold: { type: 'string' },
    head: { type: 'string' },
    tail: { type: 'string' },
    'protect-recent': { type: 'string' },
    'dry-run': { type: 'boolean' },
    ...STORE_OPTIONS,
  });
  if (values.help) {
    await write(io.stdout, SESSION_HELP);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `session ${action} takes one FILE`);
  if (action !== 'show' && action !== 'prune')
    throw new SpillwayError('SPILLWAY_USAGE', `unknown session action "${action}"; use show or prune`);
  // Showing and a dry run only read: they never create, cut or write the log.
  const readOnly = action === 'show' || values['dry-run'] === true;
  const session = readOnly ? await Session.load(file) : await Session.open(file);
  try {
    if (session.torn)
      await write(
        io.stderr,
        readOnly
          ? `spillway: ${file}: left out line ${session.torn.line} (${session.torn.bytes} bytes, no newline yet): a write under way, or cut off by a crash\n`
          : `spillway: ${file}: dropped a torn last line (line ${session.torn.line}, ${session.torn.bytes} bytes) left by an interrupted write\n`,
      );
    return action === 'show'
      ? await showSession(session, values, io)
      : await pruneEvents(session, values, io);
  } finally {
    await session.close();
  }
}

type SessionValues = {
  json?: boolean;
  threshold?: string;
  head?: string;
  tail?: string;
  'protect-recent'?: string;
  'dry-run'?: boolean;
  dir?: string;
  store?: string;
};

/** `session show`: every event, its size, its operation and what shadows it. */
async function showSession(session: Session, values: SessionValues, io: CliIo): Promise<number> {
  const shadowed = session.shadowedBy();
  const rows = session.events.map((e) => ({
    seq: e.seq,
    role: e.data.role,
    tool: isToolData(e.data) ? (e.data.toolName ?? e.data.toolCallId) : '',
    size: measureContent(e.data.content as never),
    op: e.op.type === 'replace' ? `replace ${e.op.start}-${e.op.end}` : 'append',
    shadowedBy: shadowed.get(e.seq) ?? null,
  }));
  if (values.json) {
    await write(io.stdout, `${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const lines = [
    ['seq', 'role', 'tool', 'size', 'op', 'shadowed-by'],
    ...rows.map((r) => [
      String(r.seq),
      r.role,
      r.tool,
      String(r.size),
      r.op,
      r.shadowedBy === null ? '' : String(r.shadowedBy),
    ]),
  ];
  // reduce, not Math.max(...): a session of 130,000 events would overflow the stack as arguments.
  const widths =
    lines[0]?.map((_, i) => lines.reduce((m, l) => Math.max(m, (l[i] as string).length), 0)) ?? [];
  await write(
    io.stdout,
    `${lines
      .map((l) =>
        l
          .map((c, i) =>
            i === 3 || i === 0 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number),
          )
          .join('  ')
          .trimEnd(),
      )
      .join('\n')}\n`,
  );
  return 0;
}

/** `session prune`: replaces over-budget tool results (or says what it would replace). */
async function pruneEvents(session: Session, values: SessionValues, io: CliIo): Promise<number> {
  const config = {
    ...(values.threshold !== undefined
      ? { thresholdChars: intOption('--threshold', values.threshold) as number }
      : {}),
    ...(values.head !== undefined ? { headChars: intOption('--head', values.head) as number } : {}),
    ...(values.tail !== undefined ? { tailChars: intOption('--tail', values.tail) as number } : {}),
  };
  const dryRun = values['dry-run'] ?? false;
  const protectRecent = intOption('--protect-recent', values['protect-recent']) ?? 0;
  const result = await withStore(values, io.env, (store) =>
    pruneSession(session, { config, store, protectRecent, dryRun }),
  );
  const verb = dryRun ? 'would replace' : 'replaced';
  const lines = result.pruned.map(
    (p) =>
      `${verb} seq ${p.originalSeq} (${p.callId}): ${p.charsBefore} -> ${p.charsAfter} chars, as seq ${p.replacementSeq}`,
  );
  lines.push(
    result.pruned.length === 0
      ? 'nothing to prune'
      : `${dryRun ? 'would save' : 'saved'} ${result.saved} chars in ${result.pruned.length} tool result(s)`,
  );
  await write(io.stdout, `${lines.join('\n')}\n`);
  return 0;
}
