/**
 * The layout of a CI job's log (see packs/ci.ts): which lines are the runner's chores, echoed
 * scripts and bookkeeping, which start steps, which say a step failed, and so the step that
 * failed. Collapse spends a budget on that step's output, not on the log's two ends.
 */
import type { CiRule } from './ci-rule.js';
import { CI_RULES } from './packs/index.js';

/** A line a CI rule named, by its index from 0. */
export interface CiLine {
  line: number;
  rule: string;
  /** Where the line starts and ends in the text. */
  start: number;
  end: number;
}

/** What a CI log's layout says about its lines. */
export interface CiStructure {
  /** Runs of chores, echoes and bookkeeping ([from, to], inclusive), in order, each by the rule that opened it. */
  chores: readonly (CiLine & { to: number })[];
  steps: readonly CiLine[];
  exits: readonly CiLine[];
  /** The job's and stages' names. */
  names: readonly CiLine[];
  /** The step the first failure is in: the last step before the first exit line. */
  failed?: CiLine;
  /** Where what is worth reading starts and ends: the failed step and its exit line, or the first and last lines that are no chore. */
  start: number;
  end: number;
  /** Where lines at the edges of runs start (a line index walks from them). */
  starts: ReadonlyMap<number, number>;
  /** Whether the log's lines start with a runner's timestamp. */
  stamped: boolean;
  /** Whether a line is a chore, an echo or bookkeeping. */
  chore(line: number): boolean;
}

/**
 * The timestamp a runner puts before every line of its log (GitHub Actions, Azure Pipelines),
 * and a byte-order mark.
 *
 * @example
 * '2024-01-01T00:00:00.0000000Z npm test'.replace(CI_TIMESTAMP, ''); // 'npm test'
 */
export const CI_TIMESTAMP = /^\uFEFF?(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z ?)?/;
const TIMESTAMP = CI_TIMESTAMP;
const STAMPED = /^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z/;
// Only a line's start is looked at; a log of more lines than this is read no further.
const LINE_CHARS = 256;
const MAX_LINES = 4_000_000;
// The layout is read only when a rule matches one of the first lines this many characters hold.
const SNIFF_CHARS = 256 * 1024;
const ANY = new RegExp(CI_RULES.map((r) => `(?:${r.pattern.source})`).join('|'));

/**
 * The layout of `text` when it is a CI job's log (a rule matches in its first 256 KiB), else
 * undefined. One pass over the lines, each looked at by its first 256 characters.
 *
 * @example
 * const ci = ciStructure(log);
 * ci?.failed?.rule; // 'actions/run-group'
 */
export function ciStructure(text: string): CiStructure | undefined {
  if (!sniff(text)) return undefined;
  const chores: (CiLine & { to: number })[] = [];
  const steps: CiLine[] = [];
  const exits: CiLine[] = [];
  const names: CiLine[] = [];
  let open: CiLine | undefined;
  let echoing = false;
  let line = 0;
  let before = 0;
  const starts = new Map<number, number>();
  const close = (to: number) => {
    if (open && to >= open.line) push(chores, { ...open, to });
    open = undefined;
  };
  for (let at = 0; at < text.length && line < MAX_LINES; line++) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const message = text.slice(at, Math.min(end, at + LINE_CHARS)).replace(TIMESTAMP, '');
    const here = { line, start: at, end };
    const previous = before;
    before = at;
    at = end + 1;
    const rule: CiRule | undefined = ANY.test(message) ? ruleOf(message, echoing) : undefined;
    if (rule) {
      // Each run starts or ends at or beside a line a rule names.
      if (line > 0) starts.set(line - 1, previous);
      starts.set(line, here.start);
      if (end < text.length) starts.set(line + 1, end + 1);
    }
    if (echoing && rule?.role === 'echo') {
      if (!open) push(chores, { ...here, rule: rule.id, to: line });
      continue;
    }
    echoing = false;
    if (!rule) continue;
    if (rule.role === 'chore') open ??= { ...here, rule: rule.id };
    else if (rule.role === 'step') {
      close(line - 1);
      steps.push({ ...here, rule: rule.id });
      echoing = rule.echoes === true;
    } else if (rule.role === 'noise' && !open) push(chores, { ...here, rule: rule.id, to: line });
    else if (rule.role === 'name') names.push({ ...here, rule: rule.id });
    else if (rule.role === 'exit') {
      close(line - 1);
      exits.push({ ...here, rule: rule.id });
    }
  }
  const lines = text.endsWith('\n') ? line : Math.max(line, 1);
  close(lines - 1);
  return { ...layout(chores, steps, exits, names, lines), starts, stamped: STAMPED.test(text) };
}

function sniff(text: string): boolean {
  const head = text.slice(0, SNIFF_CHARS).split('\n', 2000);
  return head.some((line) => ANY.test(line.slice(0, LINE_CHARS).replace(TIMESTAMP, '')));
}

/** The first rule that names a message; echo rules only while a step's script is echoed. */
function ruleOf(message: string, echoing: boolean): CiRule | undefined {
  return CI_RULES.find((r) => (echoing || r.role !== 'echo') && r.pattern.test(message));
}

/** Adds a run, joined to the last when they touch. */
function push(runs: (CiLine & { to: number })[], run: CiLine & { to: number }): void {
  const last = runs.at(-1);
  if (last && last.to + 1 >= run.line) last.to = Math.max(last.to, run.to);
  else runs.push(run);
}

function layout(
  chores: (CiLine & { to: number })[],
  steps: CiLine[],
  exits: CiLine[],
  names: CiLine[],
  lines: number,
): Omit<CiStructure, 'starts' | 'stamped'> {
  const marked = new Uint8Array(lines);
  for (const run of chores) marked.fill(1, run.line, Math.min(lines, run.to + 1));
  for (const name of names) marked[name.line] = 0;
  const chore = (line: number) => marked[line] === 1;
  const firstExit = exits[0];
  const failed = firstExit && steps.filter((s) => s.line < firstExit.line).at(-1);
  let start = failed?.line ?? 0;
  while (start < lines - 1 && chore(start)) start++;
  let end = firstExit?.line ?? lines - 1;
  while (end > start && chore(end)) end--;
  return { chores, steps, exits, names, ...(failed ? { failed } : {}), start, end, chore };
}
