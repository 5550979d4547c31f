/**
 * LogDx-CI (eyuansu62/LogDx; data CC-BY-4.0, code Apache-2.0): real GitHub Actions failure logs,
 * each with the signals a person verified (failed tests, compiler errors, stack locations, the
 * failing command, `##[error]` lines, exit codes) and the lines that show them. Fetched by
 * `npm run logdx` into .cache/logdx (never committed); the test and the bench skip with a message
 * when it is absent. Scored as LogDx scores it (tools/evaluate_signal_recall.py): a signal is kept
 * when every one of its evidence lines is among the lines a method kept whole, or else when its
 * value, an alias or its file appears in the method's text with colour codes stripped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTokenizer } from '../text/tokenizers/index.js';
import { METHODS } from './fidelity.js';

const o200k = getTokenizer('o200k');

/** Where the cases are: $SPILLWAY_LOGDX_DIR, else .cache/logdx at the repository's root. */
export const LOGDX_DIR = resolve(
  process.env.SPILLWAY_LOGDX_DIR ?? join(fileURLToPath(new URL('../..', import.meta.url)), '.cache/logdx'),
);

/** One signal a person verified, as LogDx's ground_truth.json holds it. */
export interface LogdxSignal {
  type: string;
  importance?: string;
  value?: string;
  aliases?: string[];
  file?: string;
  /** 1-based inclusive line ranges that show the signal. */
  evidence_lines?: [number, number][];
}

/** One case: its split (dev, holdout, stress, v2/dev, ...), its log and its signals. */
export interface LogdxCase {
  split: string;
  id: string;
  text: string;
  /** The log's lines as LogDx numbers them (Python's splitlines). */
  lines: string[];
  signals: LogdxSignal[];
}

/** The cases present in LOGDX_DIR (each a folder with raw.log and ground_truth.json); [] when absent. */
export function logdxCases(dir: string = LOGDX_DIR): LogdxCase[] {
  if (!existsSync(dir)) return [];
  const cases: LogdxCase[] = [];
  const visit = (at: string): void => {
    if (existsSync(join(at, 'raw.log')) && existsSync(join(at, 'ground_truth.json'))) {
      const rel = relative(dir, at).split(/[\\/]/);
      const text = readFileSync(join(at, 'raw.log'), 'utf8');
      const truth = JSON.parse(readFileSync(join(at, 'ground_truth.json'), 'utf8'));
      cases.push({
        split: rel.slice(0, -1).join('/'),
        id: rel.at(-1) as string,
        text,
        lines: pythonLines(text),
        signals: truth.required_signals ?? [],
      });
      return;
    }
    for (const name of readdirSync(at).sort())
      if (name !== 'published' && statSync(join(at, name)).isDirectory()) visit(join(at, name));
  };
  visit(dir);
  return cases;
}

/** Python's str.splitlines, which LogDx's line numbers follow (it splits on \v, \f and more). */
function pythonLines(text: string): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Python's separators are control characters
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

// LogDx's normalisation: ANSI CSI and OSC sequences stripped, CRLF and CR as LF.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escapes are what it strips
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(?:\x07|\x1b\\)/g;

/** What a method handed over: its text, and the 1-based lines it kept whole when it keeps lines. */
export interface Reduced {
  text: string;
  lines?: ReadonlySet<number>;
}

/**
 * Whether a signal survived, as LogDx decides: all its evidence lines kept, or its value, an
 * alias or its file in the text.
 *
 * @example
 * signalKept({ type: 'exit_code', value: 'exit code 1' }, { text: '##[error]Process completed with exit code 1.' }); // true
 */
export function signalKept(signal: LogdxSignal, reduced: Reduced, normalized?: string): boolean {
  const ranges = signal.evidence_lines ?? [];
  const kept = reduced.lines;
  if (kept && ranges.length > 0 && ranges.every(([a, b]) => everyIn(kept, a, b))) return true;
  const text = normalized ?? reduced.text.replace(ANSI, '').replace(/\r\n?/g, '\n');
  const probes = [signal.value, ...(signal.aliases ?? []), signal.file];
  return probes.some((p) => !!p?.trim() && text.includes(p.trim()));
}

function everyIn(set: ReadonlySet<number>, a: number, b: number): boolean {
  for (let n = a; n <= b; n++) if (!set.has(n)) return false;
  return true;
}

/** LogDx's grep baseline: its regex, case-insensitive, three lines before and eight after. */
export const LOGDX_GREP = /error|failed|failure|traceback|exception|assert|panic|exit code|##\[error\]/i;

/** Lines picked by a rule, as a text and the set of 1-based line numbers. */
function picked(lines: readonly string[], numbers: readonly number[]): Reduced {
  return { text: numbers.map((n) => lines[n - 1]).join('\n'), lines: new Set(numbers) };
}

/** LogDx's grep -B3 -A8 over a case's lines (1-based numbers, in order). */
export function grepLines(lines: readonly string[]): number[] {
  const keep = new Set<number>();
  lines.forEach((line, i) => {
    if (!LOGDX_GREP.test(line)) return;
    for (let n = Math.max(1, i + 1 - 3); n <= Math.min(lines.length, i + 1 + 8); n++) keep.add(n);
  });
  return [...keep].sort((a, b) => a - b);
}

/** The first of `numbers` (in order) whose lines fit in `budget` tokens, or all when budget is absent. */
function fitting(lines: readonly string[], numbers: readonly number[], budget?: number): number[] {
  if (budget === undefined) return [...numbers];
  const out: number[] = [];
  let used = 0;
  for (const n of numbers) {
    used += o200k.count(`${lines[n - 1]}\n`);
    if (used > budget) break;
    out.push(n);
  }
  return out;
}

/** A way of reducing a case's log, at a budget (undefined: the method's own size). */
export type LogdxMethod = (c: LogdxCase, budget?: number) => Promise<Reduced>;

const range = (a: number, b: number) => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

/**
 * The methods compared. At a budget each is cut to it: spillway and head+tail by their own
 * rules; tail by its last lines that fit; LogDx's grep by its first lines that fit; the oracle
 * (the evidence lines themselves, in order) by its first lines that fit.
 */
export const LOGDX_METHODS: Record<string, LogdxMethod> = {
  spillway: async (c, budget) => ({ text: await (METHODS.spillway as Method)(c.text, budget ?? 1e9) }),
  'head+tail': async (c, budget) => ({ text: await (METHODS['head+tail'] as Method)(c.text, budget ?? 1e9) }),
  'tail -200': async (c, budget) => {
    const last = range(Math.max(1, c.lines.length - 199), c.lines.length).reverse();
    return picked(c.lines, fitting(c.lines, last, budget).reverse());
  },
  'grep -B3 -A8': async (c, budget) => picked(c.lines, fitting(c.lines, grepLines(c.lines), budget)),
  oracle: async (c, budget) => {
    const evidence = new Set(
      c.signals.flatMap((s) => (s.evidence_lines ?? []).flatMap(([a, b]) => range(a, b))),
    );
    return picked(
      c.lines,
      fitting(
        c.lines,
        [...evidence].sort((a, b) => a - b),
        budget,
      ),
    );
  },
};
type Method = (text: string, budget: number) => Promise<string>;

/** One method's score on one case: signals kept, of them the critical ones, and tokens used. */
export interface CaseScore {
  split: string;
  id: string;
  method: string;
  tokens: number;
  kept: LogdxSignal[];
  missed: LogdxSignal[];
}

/**
 * Every method's score on every case at a budget (undefined: uncut, as LogDx runs its baselines).
 *
 * @example
 * const scores = await logdxScores(logdxCases(), 2000);
 * scores.filter((s) => s.method === 'spillway' && s.tokens > 2000).length; // 0
 */
export async function logdxScores(
  cases: readonly LogdxCase[],
  budget?: number,
  methods: readonly string[] = Object.keys(LOGDX_METHODS),
): Promise<CaseScore[]> {
  const scores: CaseScore[] = [];
  for (const c of cases)
    for (const method of methods) {
      const reduced = await (LOGDX_METHODS[method] as LogdxMethod)(c, budget);
      const text = reduced.text.replace(ANSI, '').replace(/\r\n?/g, '\n');
      const kept = c.signals.filter((s) => signalKept(s, reduced, text));
      const missed = c.signals.filter((s) => !kept.includes(s));
      scores.push({ split: c.split, id: c.id, method, tokens: o200k.count(reduced.text), kept, missed });
    }
  return scores;
}

/** Signals kept of all, and critical ones kept of all critical, over some scores. */
export interface Recall {
  signals: number;
  kept: number;
  critical: number;
  criticalKept: number;
  /** The mean over cases of each case's recall, as LogDx's published tables average. */
  macro: number;
}

/**
 * The recall over some scores, summed over signals and averaged over cases.
 *
 * @example
 * recallOf(scores.filter((s) => s.method === 'spillway')).kept;
 */
export function recallOf(scores: readonly CaseScore[], type?: string): Recall {
  const r: Recall = { signals: 0, kept: 0, critical: 0, criticalKept: 0, macro: 0 };
  let cases = 0;
  for (const s of scores) {
    const kept = s.kept.filter((x) => !type || x.type === type);
    const all = [...kept, ...s.missed.filter((x) => !type || x.type === type)];
    if (all.length === 0) continue;
    cases++;
    r.signals += all.length;
    r.kept += kept.length;
    r.critical += all.filter((x) => x.importance === 'critical').length;
    r.criticalKept += kept.filter((x) => x.importance === 'critical').length;
    r.macro += kept.length / all.length;
  }
  r.macro = cases === 0 ? 0 : r.macro / cases;
  return r;
}

/** LogDx's published macro signal recall of a baseline (tail or grep) over the cases present, by case id. */
export function publishedRecall(
  split: string,
  method: 'tail' | 'grep',
  dir: string = LOGDX_DIR,
): Map<string, number> {
  const path = join(dir, 'published', split, `eval_${method}.json`);
  if (!existsSync(path)) return new Map();
  const evaluation = JSON.parse(readFileSync(path, 'utf8'));
  return new Map(
    (evaluation.cases ?? []).map((c: { case_id: string; signal_recall: number }) => [
      c.case_id,
      c.signal_recall,
    ]),
  );
}
