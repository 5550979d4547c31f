import { addStats, type StageName, type StageStats } from '../engine/index.js';
import type { Prices } from '../formats/index.js';
import type { ConversationReplay, ResultRecord } from './replay-conversation.js';

import {
  emptyReplayCost,
  PRICE_MODEL,
  type ReplayCost,
  replayCost,
  requestCost,
  rewriteCost,
} from './replay-cost.js';
import type { TranscriptFormat } from './transcript.js';

/** Every count of a replay; the input and cost figures are those of ReplayCost, summed. */
export interface Totals extends ReplayCost {
  conversations: number;
  turns: number;
  toolResults: number;
  tokensBefore: number;
  tokensAfter: number;
  violations: number;
  recallFailures: number;
  prefixChanges: number;
  maskedInPrefix: number;
  /** Lines that matter in the results shrunk at arrival, and how many stayed visible. */
  needles: number;
  needlesKept: number;
  /**
   * Requests whose tool results alone exceed the input limit of the model's window (the window
   * less room for the answer and a margin), without and with spillway.
   */
  overWindowBefore: number;
  overWindowAfter: number;
  /** Turns the window guard acted on; results it masked and collapsed; turns it could not fit. */
  guardEvents: number;
  guardMasked: number;
  guardCollapsed: number;
  guardUnfit: number;
  /** Old tool calls whose large arguments were cleared: by the guard, and in all (mask with `inputs` too). */
  guardCleared: number;
  inputsCleared: number;
  /** Results that came shortened or annotated at the source (client hooks, spillway run). */
  atSource: number;
  /** Extra input cost of the prefix rewrites made on purpose (mask, supersede, guard batches). */
  rewriteCost: number;
  /** Requests with the provider's count in the transcript, and the estimate's summed errors. */
  estimateSamples: number;
  estimateRawErrors: number;
  estimateCalibrated: number;
  estimateCalibratedErrors: number;
  /** Estimated input cost, in base-price token units, under {@link PRICE_MODEL}. */
  costBefore: number;
  costAfter: number;
}

export interface FileReport extends Totals {
  file: string;
  format: TranscriptFormat;
  window: number;
}

/** One failed check, with what it takes to find the result. */
export interface FailedCheck {
  check: 'budget' | 'recall' | 'prefix';
  file: string;
  conversation: string;
  tool: string;
  /** The tool result's call id. */
  id: string;
  /** budget: the result's budget and its tokens after spillway. */
  budget?: number;
  tokens?: number;
  /** recall: the marker id that did not give back the original. */
  markerId?: string;
  /** prefix: the request whose cached prefix changed. */
  turn?: number;
}

/** At most this many failed checks are listed (their counts are always whole). */
const MAX_FAILURES = 1000;

export interface ReplayReport {
  preset: string;
  tokenizer: string;
  priceModel: typeof PRICE_MODEL;
  totals: Totals;
  /** Every failed check (the first {@link MAX_FAILURES}), so a red count names its results. */
  failures: FailedCheck[];
  /** Files that could not be read, with why: they were skipped, the others replayed. */
  skipped: { file: string; reason: string }[];
  files: FileReport[];
  stages: Partial<Record<StageName, StageStats>>;
  tools: Record<string, { results: number; tokensBefore: number; tokensAfter: number }>;
  largestBefore: ResultRecord[];
  largestAfter: ResultRecord[];
  biggestRewrites: ResultRecord[];
  /** The longest conversation's requests, for the tokens-per-turn chart. */
  longest: { file: string; id: string; perTurn: { before: number; after: number }[] } | null;
  /** Tool results by size (tokens before), in power-of-two buckets. */
  sizeBuckets: { upTo: number; results: number }[];
}

function emptyTotals(): Totals {
  return {
    conversations: 0,
    turns: 0,
    toolResults: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    violations: 0,
    recallFailures: 0,
    prefixChanges: 0,
    maskedInPrefix: 0,
    needles: 0,
    needlesKept: 0,
    overWindowBefore: 0,
    overWindowAfter: 0,
    guardEvents: 0,
    guardMasked: 0,
    guardCollapsed: 0,
    guardUnfit: 0,
    guardCleared: 0,
    inputsCleared: 0,
    atSource: 0,
    rewriteCost: 0,
    estimateSamples: 0,
    estimateRawErrors: 0,
    estimateCalibrated: 0,
    estimateCalibratedErrors: 0,
    costBefore: 0,
    costAfter: 0,
    ...emptyReplayCost(),
  };
}

function addTotals(into: Totals, from: Totals): void {
  for (const key of Object.keys(into) as (keyof Totals)[]) into[key] += from[key];
}

const excerptBytes = 400;
function excerpt(text: string): string {
  return text.length <= excerptBytes * 2
    ? text
    : `${text.slice(0, excerptBytes)}\n…\n${text.slice(-excerptBytes)}`;
}

/** Lines of common context kept above the first difference. */
const CONTEXT_LINES = 2;

/**
 * Excerpts of a result before and after that start where they differ (two lines of context
 * above): a rewrite's panes open on its change, not on the lines both sides share.
 *
 * @example
 * excerptsFromDifference('a\nb\nc\nd', 'a\nb\nc\nX'); // { before: 'b\nc\nd', after: 'b\nc\nX', sameLines: 1 }
 */
export function excerptsFromDifference(
  before: string,
  after: string,
): { before: string; after: string; sameLines: number } {
  let i = 0;
  const n = Math.min(before.length, after.length);
  while (i < n && before.charCodeAt(i) === after.charCodeAt(i)) i++;
  let start = before.lastIndexOf('\n', i - 1) + 1;
  for (let k = 0; k < CONTEXT_LINES && start > 0; k++) start = before.lastIndexOf('\n', start - 2) + 1;
  let sameLines = 0;
  for (let at = before.indexOf('\n'); at >= 0 && at < start; at = before.indexOf('\n', at + 1)) sameLines++;
  return { before: excerpt(before.slice(start)), after: excerpt(after.slice(start)), sameLines };
}

/**
 * Builds a report from the replays of every conversation of every file.
 *
 * @example
 * const builder = new ReportBuilder('balanced', 'o200k');
 * builder.addFile(file, format, 200_000, replays);
 * const report = builder.build();
 */
export class ReportBuilder {
  readonly #files: FileReport[] = [];
  readonly #stages: Partial<Record<StageName, StageStats>> = {};
  readonly #tools: ReplayReport['tools'] = {};
  readonly #results: (ResultRecord & { file: string })[] = [];
  #longest: ReplayReport['longest'] = null;
  readonly #sizes = new Map<number, number>();
  readonly #failures: FailedCheck[] = [];
  readonly #skipped: { file: string; reason: string }[] = [];

  constructor(
    private readonly preset: string,
    private readonly tokenizer: string,
    /** The config's prices, over the built-in table. */
    private readonly prices?: Readonly<Prices>,
  ) {}

  addFile(file: string, format: TranscriptFormat, window: number, replays: ConversationReplay[]): FileReport {
    const report: FileReport = { file, format, window, ...emptyTotals() };
    for (const r of replays) {
      report.conversations++;
      report.turns += r.turns;
      report.toolResults += r.toolResults;
      report.tokensBefore += r.tokensBefore;
      report.tokensAfter += r.tokensAfter;
      report.violations += r.violations.length;
      report.recallFailures += r.recallFailures.length;
      report.prefixChanges += r.prefixChanges.length;
      report.maskedInPrefix += r.maskedInPrefix;
      report.needles += r.needles;
      report.needlesKept += r.needlesKept;
      report.overWindowBefore += r.perTurn.filter((t) => t.overBefore).length;
      report.overWindowAfter += r.perTurn.filter((t) => t.overAfter).length;
      report.guardEvents += r.guard.events;
      report.guardMasked += r.guard.masked;
      report.guardCollapsed += r.guard.collapsed;
      report.guardUnfit += r.guard.unfit;
      report.guardCleared += r.guard.cleared;
      report.inputsCleared += r.inputsCleared;
      report.atSource += r.atSource;
      report.rewriteCost += rewriteCost(r.perTurn);
      report.estimateSamples += r.estimate.samples;
      report.estimateRawErrors += r.estimate.rawErrors;
      report.estimateCalibrated += r.estimate.calibrated;
      report.estimateCalibratedErrors += r.estimate.calibratedErrors;
      report.costBefore += requestCost(r.perTurn, 'before');
      report.costAfter += requestCost(r.perTurn, 'after');
      const cost = replayCost(r, this.prices);
      for (const key of Object.keys(cost) as (keyof ReplayCost)[]) report[key] += cost[key];
      addStats(this.#stages, r.stats);
      this.#addFailures(file, r);
      for (const result of r.results) {
        const name = result.tool || '(unknown)';
        this.#tools[name] ??= { results: 0, tokensBefore: 0, tokensAfter: 0 };
        const tool = this.#tools[name];
        tool.results++;
        tool.tokensBefore += result.tokensBefore;
        tool.tokensAfter += result.tokensAfter;
        const bucket = 2 ** Math.max(4, Math.ceil(Math.log2(Math.max(1, result.tokensBefore))));
        this.#sizes.set(bucket, (this.#sizes.get(bucket) ?? 0) + 1);
        this.#results.push({ ...result, ...excerptsFromDifference(result.before, result.after), file });
      }
      if (!this.#longest || r.perTurn.length > this.#longest.perTurn.length)
        this.#longest = {
          file,
          id: r.id,
          perTurn: r.perTurn.map(({ before, after }) => ({ before, after })),
        };
    }
    this.#files.push(report);
    // Only the largest results are kept for the report's tables.
    this.#results.sort((a, b) => b.tokensBefore - a.tokensBefore);
    this.#results.splice(200);
    return report;
  }

  /** Records a file that could not be read (it is skipped; the run goes on). */
  skip(file: string, reason: string): void {
    this.#skipped.push({ file, reason });
  }

  #addFailures(file: string, r: ConversationReplay): void {
    const at = { file, conversation: r.id };
    const all: FailedCheck[] = [
      ...r.violations.map((v) => ({ check: 'budget' as const, ...at, ...v })),
      ...r.recallFailures.map((f) => ({ check: 'recall' as const, ...at, ...f })),
      ...r.prefixChanges.map((p) => ({ check: 'prefix' as const, ...at, ...p })),
    ];
    this.#failures.push(...all.slice(0, Math.max(0, MAX_FAILURES - this.#failures.length)));
  }

  build(): ReplayReport {
    const totals = emptyTotals();
    for (const f of this.#files) addTotals(totals, f);
    const results = this.#results;
    return {
      preset: this.preset,
      tokenizer: this.tokenizer,
      priceModel: PRICE_MODEL,
      totals,
      failures: this.#failures,
      skipped: this.#skipped,
      files: this.#files,
      stages: this.#stages,
      tools: this.#tools,
      largestBefore: results.slice(0, 10),
      largestAfter: [...results].sort((a, b) => b.tokensAfter - a.tokensAfter).slice(0, 10),
      biggestRewrites: [...results]
        .filter((r) => r.actedBy.length > 0)
        .sort((a, b) => b.tokensBefore - b.tokensAfter - (a.tokensBefore - a.tokensAfter))
        .slice(0, 10),
      longest: this.#longest,
      sizeBuckets: [...this.#sizes.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([upTo, n]) => ({ upTo, results: n })),
    };
  }
}
