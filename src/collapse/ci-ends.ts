import { CI_TIMESTAMP, ciStructure, type ImportantLine } from '../signals/index.js';
import type { GrowthEnds } from './grow.js';

/** Where a log's ends are for the line selection, and what it keeps first. */
export interface CiEnds extends GrowthEnds {
  /** The CI decision, for explain (`the failed step (actions/run-group)`); absent for other texts. */
  why?: string;
  /**
   * The ranked findings in the order they get room: the failed step's command, its exit lines and
   * the job's name first, then the findings in that step, then the ones in steps that passed.
   */
  order: (ranked: readonly ImportantLine[]) => readonly ImportantLine[];
  /** Where lines at the layout's edges start, for the line index. */
  starts: ReadonlyMap<number, number>;
  /** A kept line as shown: a CI log's lines without the timestamp the runner put before each. */
  shown: (line: string) => string;
  /** The findings, without those in chores and echoed scripts. */
  found: readonly ImportantLine[];
}

// A job that failed in many steps (continue-on-error) shows this many exit lines first.
const FIRST_EXITS = 3;

/**
 * A CI job's log read by its layout (see signals/ci-structure.ts): its ends are the step that
 * failed (where its command is) and that step's exit line; chores and echoed scripts are passed
 * over, and an error word in them is no finding. Any other text keeps its own ends and findings.
 *
 * @example
 * const ends = ciEnds(log, 3154, found, {});
 * ends.why; // 'the failed step (actions/run-group)'
 */
export function ciEnds(
  text: string,
  lines: number,
  found: readonly ImportantLine[],
  options: { outline?: boolean | undefined; signals?: { rules?: boolean } | undefined },
): CiEnds {
  const plain: CiEnds = {
    start: 0,
    end: lines - 1,
    skip: () => false,
    order: (ranked) => ranked,
    found,
    starts: new Map(),
    shown: (line) => line,
  };
  if (options.outline || options.signals?.rules === false) return plain;
  const ci = ciStructure(text);
  if (!ci || (ci.steps.length === 0 && ci.exits.length === 0)) return plain;
  const first: ImportantLine[] = [];
  if (ci.failed)
    first.push({ ...ci.failed, kind: 'summary', rule: `${ci.failed.rule}: the step that failed` });
  for (const exit of ci.exits.slice(0, FIRST_EXITS)) first.push({ ...exit, kind: 'exit' });
  // Which job failed: its name, among the set-up lines.
  const name = ci.names.at(-1);
  if (name) first.push({ ...name, kind: 'summary', rule: `${name.rule}: the job` });
  return {
    start: Math.min(ci.start, lines - 1),
    end: Math.min(ci.end, lines - 1),
    skip: (line) => ci.chore(line),
    ...(ci.failed ? { why: `the failed step (${ci.failed.rule})` } : {}),
    // Without a failed step the span is all the log but its chores: the order is the ranking.
    order: (ranked) => {
      const inStep = (f: ImportantLine) => f.line >= ci.start && f.line <= ci.end;
      return [...first, ...ranked.filter(inStep), ...ranked.filter((f) => !inStep(f))];
    },
    starts: ci.starts,
    shown: ci.stamped ? (line) => line.replace(CI_TIMESTAMP, '') : (line) => line,
    found: found.filter((f) => !ci.chore(f.line)),
  };
}
