import {
  type CollapseExplanation,
  DEFAULT_COLLAPSE_MAX_TOKENS,
  DEFAULT_WINDOW_LINES,
  explainCollapse,
  RARITY_BELOW,
} from '../../collapse/index.js';
import { SpillwayError } from '../../errors.js';
import { askedTerms } from '../../signals/index.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { budgetOption, intOption, parseCommandArgs } from '../args.js';
import { helpText } from '../help.js';
import { type CliIo, readInputText, write } from '../io.js';

export const EXPLAIN_HELP =
  helpText(`usage: spillway explain [--tokens N] [--head-lines N] [--tail-lines N] [--tokenizer T]
                       [--call TEXT] [--said TEXT] [--json] [FILE]

Shows what collapse keeps of FILE (or standard input) at a budget, and why: each kept line with
its reason (the signal rule that named it, such as "error core/error-word", or "rare", "head",
"tail", "context of N"), the runs left out, the rules that fired in the whole text, and whether
rarity was asked. Nothing is stashed. Use it to see, and report, what went wrong.

  --tokens N       token budget (default ${DEFAULT_COLLAPSE_MAX_TOKENS})
  --head-lines N   head:tail growth ratio (default ${DEFAULT_WINDOW_LINES}:${DEFAULT_WINDOW_LINES})
  --tail-lines N
  --tokenizer T    o200k (default), cl100k or heuristic
  --call TEXT      the command or arguments that printed it: lines naming what it asked for
                   (a test, a symbol, a file) are kept as "relevant"
  --said TEXT      what the user or the model said before the call: the names of code in it
                   (test_charge, parseConfig, \`charge\`, pay.ts) count as asked for too
  --json           print the explanation as JSON
  -h, --help       show this help
`);

const n = (x: number) => x.toLocaleString('en-US');
const SHOWN_CHARS = 100;

/** The explanation as a person reads it: a header, the rules, then kept lines and omitted runs. */
export function formatExplanation(name: string, e: CollapseExplanation, tokenizer: string): string {
  const out: string[] = [
    `${name}: ${n(e.lines)} lines, ${n(e.chars)} characters, ${n(e.tokensBefore)} tokens (${tokenizer}); budget ${n(e.budget)}`,
  ];
  if (e.window === 'none') out.push('fits the budget: collapse leaves it as it is');
  else
    out.push(
      `${e.window} window: ${n(e.tokensAfter)} tokens` +
        (e.kept.length ? `, ${n(e.kept.length)} lines kept` : ''),
    );
  const fired = Object.entries(e.rules).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const named = fired.reduce((sum, [, count]) => sum + count, 0);
  out.push(
    fired.length
      ? `rules named ${n(named)} lines: ${fired.map(([id, count]) => `${id} ${n(count)}`).join(', ')}`
      : 'rules named no line',
  );
  out.push(
    e.rarity.asked
      ? `rarity: ${e.rarity.found} rare line${e.rarity.found === 1 ? '' : 's'}`
      : `rarity: not asked (the rules named ${n(named)} lines; it is asked below ${RARITY_BELOW})`,
  );
  if (e.ci) out.push(...ciLines(e.ci));
  if (e.kept.length === 0) {
    if (e.window !== 'none') out.push('', e.text);
    return `${out.join('\n')}\n`;
  }
  const width = String(e.lines).length;
  const whyWidth = Math.max(...e.kept.map((k) => k.why.length));
  out.push('', `${'line'.padStart(width)}  ${'why'.padEnd(whyWidth)}  text`);
  let gap = 0;
  for (const k of e.kept) {
    const omitted = e.omitted[gap];
    if (omitted && omitted[1] < k.line) {
      out.push(
        `${''.padStart(width)}  … lines ${n(omitted[0])}-${n(omitted[1])} left out (${n(omitted[1] - omitted[0] + 1)})`,
      );
      gap++;
    }
    const text = k.text.length > SHOWN_CHARS ? `${k.text.slice(0, SHOWN_CHARS)}…` : k.text;
    out.push(`${String(k.line).padStart(width)}  ${k.why.padEnd(whyWidth)}  ${text}`);
  }
  const last = e.omitted[gap];
  if (last)
    out.push(
      `${''.padStart(width)}  … lines ${n(last[0])}-${n(last[1])} left out (${n(last[1] - last[0] + 1)})`,
    );
  return `${out.join('\n')}\n`;
}

export async function explainCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('explain', argv, {
    tokens: { type: 'string' },
    'head-lines': { type: 'string' },
    'tail-lines': { type: 'string' },
    tokenizer: { type: 'string' },
    call: { type: 'string' },
    said: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    await write(io.stdout, EXPLAIN_HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new SpillwayError('SPILLWAY_USAGE', `explain takes one FILE, got ${positionals.length}`);
  const text = await readInputText(io, positionals[0]);
  const tokenizer = getTokenizer(values.tokenizer);
  const explanation = await explainCollapse(text, {
    tokenizer,
    budget: budgetOption('--tokens', values.tokens, 'tokens'),
    headLines: intOption('--head-lines', values['head-lines'], 0),
    tailLines: intOption('--tail-lines', values['tail-lines'], 0),
    query: askedTerms(values.call ?? '', values.said),
  });
  await write(
    io.stdout,
    values.json
      ? `${JSON.stringify(explanation)}\n`
      : formatExplanation(positionals[0] ?? 'standard input', explanation, tokenizer.name),
  );
  return 0;
}

// The chores a CI log's layout passes over, shown at most this many (a job has dozens of steps).
const SHOWN_CHORES = 6;

/** What the CI layout decided: the step the budget goes to, its exit, the chores passed over. */
function ciLines(ci: NonNullable<CollapseExplanation['ci']>): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const chores = ci.chores.filter((c) => c.to > c.from);
  const shown = chores
    .slice(0, SHOWN_CHORES)
    .map((c) => `${n(c.from)}-${n(c.to)} ${c.rule}`)
    .join(', ');
  const more = chores.length > SHOWN_CHORES ? ` and ${chores.length - SHOWN_CHORES} more` : '';
  return [
    ci.failed
      ? `ci: the budget goes to the failed step at line ${n(ci.failed.line)} (${ci.failed.rule})` +
        (ci.exits[0] ? ` up to its exit at line ${n(ci.exits[0].line)} (${ci.exits[0].rule})` : '')
      : 'ci: no step failed with an exit line; the ends are the first and last lines that are no chore',
    `ci: chores, echoed scripts and bookkeeping passed over (their error words are no findings): ${shown || 'none'}${more}`,
    ...(ci.stamped ? ["ci: the runner's timestamps are left off the kept lines"] : []),
  ];
}
