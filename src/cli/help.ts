// Every command's help is written as plain text, but its options list is laid out here, once:
// the shared pieces (--dir and --store, --preset and --config) are spliced into lists whose
// columns differ, so an alignment written by hand in each drifted.

// A flag spec longer than this gets its description on the lines below it.
const WIDEST_FLAG = 22;
// An options row: two spaces, a flag spec (single spaces inside it), then two or more spaces.
const ROW = /^ {2}(-\S(?:\S| (?! ))*)(?: {2,}(.*))?$/;
// A continuation line of the row above it: deeper than a flag spec's indent.
const CONTINUATION = /^ {3,}(\S.*)$/;

type Row = { flag: string; lines: string[] };

/**
 * A command's help with every run of options rows aligned: each run's descriptions (and their
 * continuation lines) start in one column, two spaces past its longest flag spec; a flag spec
 * wider than 22 characters takes a line of its own. Other lines are left as they are.
 *
 * @example
 * helpText('usage: x [--a N] [--long-name N]\n\n  --a N  one\n  --long-name N  two\n');
 * // 'usage: x [--a N] [--long-name N]\n\n  --a N          one\n  --long-name N  two\n'
 */
export function helpText(text: string): string {
  const out: string[] = [];
  let run: Row[] = [];
  const flush = () => {
    out.push(...layout(run));
    run = [];
  };
  for (const line of text.split('\n')) {
    const row = ROW.exec(line);
    const more = run.length > 0 ? CONTINUATION.exec(line) : null;
    if (row) run.push({ flag: row[1] as string, lines: row[2] ? [row[2]] : [] });
    else if (more) run.at(-1)?.lines.push(more[1] as string);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out.join('\n');
}

/**
 * Terms and their descriptions (a command's clients, its subcommands) as one aligned list:
 * each description's lines start two spaces past the longest term, whatever they were
 * indented by where they were written.
 *
 * @example
 * termList([['claude', 'Claude Code\n  cuts at 30,000'], ['opencode', 'opencode']]);
 * // '  claude    Claude Code\n            cuts at 30,000\n  opencode  opencode'
 */
export function termList(rows: readonly (readonly [term: string, text: string])[]): string {
  return layout(rows.map(([flag, text]) => ({ flag, lines: text.split('\n').map((l) => l.trim()) }))).join(
    '\n',
  );
}

function layout(rows: readonly Row[]): string[] {
  const fitting = rows.map((r) => r.flag.length).filter((n) => n <= WIDEST_FLAG);
  const column = 2 + Math.max(0, ...fitting) + 2;
  const pad = ' '.repeat(column);
  return rows.flatMap(({ flag, lines }) => {
    const [first, ...rest] = lines;
    const head =
      flag.length > WIDEST_FLAG || first === undefined
        ? [`  ${flag}`, ...(first === undefined ? [] : [pad + first])]
        : [`  ${flag.padEnd(column - 2)}${first}`];
    return [...head, ...rest.map((line) => pad + line)];
  });
}
