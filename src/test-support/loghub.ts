/**
 * Loghub's 2,000-line samples (logpai/loghub: 16 systems' logs, each with a structured CSV that
 * people parsed into fields and event templates, BGL's with alert labels): lines that matter
 * by labels nobody here wrote. Fetched by `npm run loghub` into .cache/loghub (never committed);
 * the tests and the bench skip with a message when it is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METHODS, mostThatFit } from './fidelity.js';

/** Where the samples are: $SPILLWAY_LOGHUB_DIR, else .cache/loghub at the repository's root. */
export const LOGHUB_DIR = resolve(
  process.env.SPILLWAY_LOGHUB_DIR ?? join(fileURLToPath(new URL('../..', import.meta.url)), '.cache/loghub'),
);

/** One system's sample and the lines its labels single out (0-based line numbers). */
export interface LoghubLog {
  system: string;
  text: string;
  lines: string[];
  /** Lines labelled as alerts (BGL: any label but "-"). */
  alerts: number[];
  /** Lines whose parsed level is an error or a warning, where those are a minority. */
  errors: number[];
  /** Lines whose event template occurs once in the sample: the one-off events. */
  rare: number[];
}

// A level names lines that matter only where it is rare: BGL's 347 FATAL lines are its noise.
const LEVEL_SHARE = 0.1;
const ERROR_LEVELS = /^(E|W|ERROR|WARN|WARNING|FATAL|SEVERE|error|warn|warning)$/;

/**
 * Rows of a CSV (RFC 4180: quoted fields, doubled quotes, newlines inside quotes).
 *
 * @example
 * parseCsv('a,"b, ""c"""\n1,2\n'); // [['a', 'b, "c"'], ['1', '2']]
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[++i];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** The samples present in LOGHUB_DIR, each with its labelled lines; [] when it is absent. */
export function loghubLogs(): LoghubLog[] {
  if (!existsSync(LOGHUB_DIR)) return [];
  const logs: LoghubLog[] = [];
  for (const name of readdirSync(LOGHUB_DIR).sort()) {
    const m = /^(\w+)_2k\.log$/.exec(name);
    const csvPath = join(LOGHUB_DIR, `${name}_structured.csv`);
    if (!m || !existsSync(csvPath)) continue;
    const text = readFileSync(join(LOGHUB_DIR, name), 'utf8');
    const [header, ...rows] = parseCsv(readFileSync(csvPath, 'utf8'));
    const col = (key: string) => header?.indexOf(key) ?? -1;
    const [lineId, label, level, event] = [col('LineId'), col('Label'), col('Level'), col('EventId')];
    const at = (row: string[]) => Number(row[lineId]) - 1;
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row[event] ?? '', (counts.get(row[event] ?? '') ?? 0) + 1);
    const leveled = level < 0 ? [] : rows.filter((row) => ERROR_LEVELS.test(row[level] ?? ''));
    logs.push({
      system: m[1] as string,
      text,
      lines: text.split('\n'),
      alerts: label < 0 ? [] : rows.filter((row) => row[label] !== '-').map(at),
      errors: leveled.length <= rows.length * LEVEL_SHARE ? leveled.map(at) : [],
      rare: rows.filter((row) => counts.get(row[event] ?? '') === 1).map(at),
    });
  }
  return logs;
}

/** Of some labelled lines, how many each method kept whole, and how many the budget could hold. */
export interface LoghubRecall {
  labelled: number;
  oracle: number;
  kept: Record<string, number>;
}

/**
 * Each method's recall of one kind of labelled line over the samples at `budget` tokens: a line
 * counts as kept when it is in the output whole. The oracle is the most of them that fit.
 *
 * @example
 * const r = await loghubRecall(loghubLogs(), 'alerts', 1000);
 * r.kept.spillway / r.labelled;
 */
export async function loghubRecall(
  logs: readonly LoghubLog[],
  kind: 'alerts' | 'errors' | 'rare',
  budget: number,
): Promise<LoghubRecall> {
  const recall: LoghubRecall = { labelled: 0, oracle: 0, kept: {} };
  for (const log of logs) {
    const labelled = log[kind].map((i) => log.lines[i] as string).filter((l) => l.length > 0);
    if (labelled.length === 0) continue;
    recall.labelled += labelled.length;
    recall.oracle += mostThatFit(labelled, budget);
    for (const [name, method] of Object.entries(METHODS)) {
      const shown = new Set((await method(log.text, budget)).split('\n'));
      recall.kept[name] = (recall.kept[name] ?? 0) + labelled.filter((l) => shown.has(l)).length;
    }
  }
  return recall;
}
