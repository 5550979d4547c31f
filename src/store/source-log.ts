import type { StoreKey } from './ids.js';
import type { Store } from './store.js';

/**
 * What capture at the source did with one output (a client hook, `spillway run`): the output's
 * tokens whole and the tokens the model was shown of it (the client's cut and spillway's note,
 * or spillway's collapse), both counted as bytes / 4 like the proxy's tool-result figures.
 */
export interface SourceRecord {
  /** ISO time. */
  at: string;
  /** `claude`, `codex`, `gemini`, `run`. */
  by: string;
  /** How it reached the model: `collapse` in the client's place, `note` beside the client's cut. */
  how: 'collapse' | 'note';
  whole: number;
  shown: number;
  /** The recall id of the whole output. */
  id: string;
}

/** One log a day: bounded by one entry's limit, and read back a day or two at a time. */
const keyOf = (day: string): StoreKey => ({ dir: 'at-source', name: day });
const dayOf = (at: string) => at.slice(0, 10);
/** The most of a day's log read back (its newest part): /stats stays quick on a busy day. */
const READ_BACK_BYTES = 1024 * 1024;

/**
 * Appends one record to today's log; never throws (a lost record costs a figure, not an output).
 *
 * @example
 * await recordAtSource(store, { at: new Date().toISOString(), by: 'codex', how: 'note', whole: 155274, shown: 3400, id });
 */
export async function recordAtSource(store: Store, record: SourceRecord): Promise<void> {
  try {
    await store.append(keyOf(dayOf(record.at)), Buffer.from(`${JSON.stringify(record)}\n`));
  } catch {}
}

/** What capture at the source did over some days, by client. */
export interface SourceSummary {
  days: number;
  outputs: number;
  whole: number;
  shown: number;
  byClient: Record<string, { outputs: number; whole: number; shown: number }>;
  /** The newest records, newest last (at most 20). */
  recent: SourceRecord[];
}

const isRecord = (r: unknown): r is SourceRecord =>
  !!r &&
  typeof r === 'object' &&
  typeof (r as SourceRecord).by === 'string' &&
  Number.isFinite((r as SourceRecord).whole) &&
  Number.isFinite((r as SourceRecord).shown);

/**
 * Reads the logs of the last `days` days (today included): torn or foreign lines are skipped.
 *
 * @example
 * const summary = await readAtSource(store, { days: 2, now: new Date() });
 */
export async function readAtSource(
  store: Store,
  options: { days: number; now: Date },
): Promise<SourceSummary> {
  const summary: SourceSummary = {
    days: options.days,
    outputs: 0,
    whole: 0,
    shown: 0,
    byClient: Object.create(null),
    recent: [],
  };
  for (let back = options.days - 1; back >= 0; back--) {
    const day = new Date(options.now.getTime() - back * 86_400_000).toISOString().slice(0, 10);
    const info = await store.stat(keyOf(day)).catch(() => null);
    if (!info) continue;
    const start = Math.max(0, info.bytes - READ_BACK_BYTES);
    const body = await store.get(keyOf(day), { start, end: info.bytes }).catch(() => null);
    const lines = body?.toString('utf8').split('\n') ?? [];
    for (const line of start > 0 ? lines.slice(1) : lines) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isRecord(record)) continue;
      summary.outputs++;
      summary.whole += record.whole;
      summary.shown += record.shown;
      summary.byClient[record.by] ??= { outputs: 0, whole: 0, shown: 0 };
      const by = summary.byClient[record.by] as { outputs: number; whole: number; shown: number };
      by.outputs++;
      by.whole += record.whole;
      by.shown += record.shown;
      summary.recent.push(record);
      if (summary.recent.length > 20) summary.recent.shift();
    }
  }
  return summary;
}
