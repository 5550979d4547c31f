import { addStats, type StageName, type StageStats } from '../../engine/index.js';
import type { ApiName } from '../../providers/index.js';
import type { RewriteOutcome } from '../rewrite/index.js';
import { newSavings, type Savings, savingsMetrics } from './savings.js';

/** What the proxy counts; `/stats` serves it as JSON and `/metrics` in Prometheus text. */
export interface ProxyStats {
  startedAt: string;
  requests: number;
  byApi: Partial<Record<ApiName | 'passthrough', number>>;
  /** Requests whose body went out rewritten. */
  rewritten: number;
  /** Tool-result tokens (heuristic count) before and after, and saved. */
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  stages: Partial<Record<StageName, StageStats>>;
  frozenReplayed: number;
  freezeFailures: number;
  /** Old tool calls whose large arguments `mask` with `inputs` cleared (the guard's: windowGuard). */
  inputsCleared: number;
  /** Engine failures: the original request was forwarded. */
  failOpen: number;
  /** Bodies that were not JSON or not the API's shape: forwarded untouched. */
  unparseable: number;
  tooLarge: number;
  /** Model API requests forwarded unmodified because they waited too long to be rewritten. */
  admissionTimeouts: number;
  upstreamErrors: number;
  clientAborts: number;
  /** In observe mode: what would have been saved. */
  observeOnly: boolean;
  /**
   * Answers whose usage was read, and the mean relative error of spillway's estimate of their
   * request against the provider's count: raw (o200k of the JSON) and calibrated (times the
   * factor learned from earlier answers).
   */
  calibration: {
    answers: number;
    meanRawError: number;
    meanCalibratedError: number;
    lastRawError: number;
    lastCalibratedError: number;
  };
  /** Requests whose estimate was over their window, and what the guard did about them. */
  windowGuard: { events: number; masked: number; collapsed: number; cleared: number; unfit: number };
  /** Input tokens and cost of the answered requests, every denominator named (see savings.ts). */
  savings: Savings;
}

/**
 * Fresh, zeroed proxy statistics.
 *
 * @example
 * const stats = newStats(false);
 * stats.requests++;
 */
export function newStats(observeOnly: boolean): ProxyStats {
  return {
    startedAt: new Date().toISOString(),
    requests: 0,
    byApi: {},
    rewritten: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    tokensSaved: 0,
    stages: {},
    frozenReplayed: 0,
    freezeFailures: 0,
    inputsCleared: 0,
    failOpen: 0,
    unparseable: 0,
    tooLarge: 0,
    admissionTimeouts: 0,
    upstreamErrors: 0,
    clientAborts: 0,
    observeOnly,
    calibration: {
      answers: 0,
      meanRawError: 0,
      meanCalibratedError: 0,
      lastRawError: 0,
      lastCalibratedError: 0,
    },
    windowGuard: { events: 0, masked: 0, collapsed: 0, cleared: 0, unfit: 0 },
    savings: newSavings(observeOnly),
  };
}

/**
 * Counts one request that arrived, by API (`passthrough` for everything not rewritten).
 *
 * @example
 * countRequest(stats, 'anthropic');
 */
export function countRequest(stats: ProxyStats, api: ApiName | undefined): void {
  stats.requests++;
  const key = api ?? 'passthrough';
  stats.byApi[key] = (stats.byApi[key] ?? 0) + 1;
}

/**
 * Adds what one rewrite did: the tokens its conversation's engine measured, its stages'
 * counters, frozen replays, and whether it failed open or could not be read.
 *
 * @example
 * recordRewrite(stats, await rewriteRequest(api, raw, header, deps, { updateBoundary: true }));
 */
export function recordRewrite(stats: ProxyStats, out: RewriteOutcome): void {
  if (out.unparseable) stats.unparseable++;
  if (out.failOpen) stats.failOpen++;
  if (out.changed) stats.rewritten++;
  stats.tokensBefore += out.tokensBefore;
  stats.tokensAfter += out.tokensAfter;
  stats.tokensSaved += out.tokensBefore - out.tokensAfter;
  stats.frozenReplayed += out.frozenReplayed;
  stats.freezeFailures += out.freezeFailures;
  stats.inputsCleared += out.inputsCleared ?? 0;
  addStats(stats.stages, out.stages);
  if (out.guard) {
    const g = stats.windowGuard;
    g.events++;
    g.masked += out.guard.masked;
    g.collapsed += out.guard.collapsed;
    g.cleared += out.guard.cleared;
    if (!out.guard.fits) g.unfit++;
  }
}

/**
 * Adds one answer's calibration sample (the errors of the estimate of its request).
 *
 * @example
 * recordCalibration(stats, conversation.calibration.observe(model, raw, providerTokens));
 */
export function recordCalibration(
  stats: ProxyStats,
  sample: { rawError: number; calibratedError: number } | undefined,
): void {
  if (!sample) return;
  const c = stats.calibration;
  c.answers++;
  c.meanRawError += (sample.rawError - c.meanRawError) / c.answers;
  c.meanCalibratedError += (sample.calibratedError - c.meanCalibratedError) / c.answers;
  c.lastRawError = sample.rawError;
  c.lastCalibratedError = sample.calibratedError;
}

function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * The statistics in Prometheus text format: `spillway_` prefix, counters ending in `_total`.
 *
 * @example
 * renderMetrics(stats); // '# TYPE spillway_requests_total counter\nspillway_requests_total{api="anthropic"} 12\n...'
 */
export function renderMetrics(stats: ProxyStats): string {
  const lines: string[] = [];
  const counter = (name: string, help: string, samples: [Record<string, string>, number][]) => {
    lines.push(`# HELP spillway_${name} ${help}`, `# TYPE spillway_${name} counter`);
    for (const [labels, value] of samples) {
      const l = Object.entries(labels)
        .map(([k, v]) => `${k}="${label(v)}"`)
        .join(',');
      lines.push(`spillway_${name}${l ? `{${l}}` : ''} ${value}`);
    }
  };
  counter(
    'requests_total',
    'Requests received, by API.',
    Object.entries(stats.byApi).map(([api, n]) => [{ api }, n ?? 0]),
  );
  counter('rewritten_total', 'Requests forwarded with a rewritten body.', [[{}, stats.rewritten]]);
  counter('tokens_before_total', 'Tool-result tokens before spillway (bytes/4).', [[{}, stats.tokensBefore]]);
  counter('tokens_after_total', 'Tool-result tokens after spillway (bytes/4).', [[{}, stats.tokensAfter]]);
  counter('tokens_saved_total', 'Tool-result tokens saved (bytes/4).', [[{}, stats.tokensSaved]]);
  const stages = Object.entries(stats.stages) as [StageName, StageStats][];
  counter(
    'stage_runs_total',
    'Stage runs.',
    stages.map(([stage, s]) => [{ stage }, s.runs]),
  );
  counter(
    'stage_acted_total',
    'Results a stage changed.',
    stages.map(([stage, s]) => [{ stage }, s.acted]),
  );
  counter(
    'stage_declined_total',
    'Results a stage left alone, by reason.',
    stages.flatMap(([stage, s]) =>
      Object.entries(s.declined).map(
        ([reason, n]) => [{ stage, reason }, n ?? 0] as [Record<string, string>, number],
      ),
    ),
  );
  counter(
    'stage_reverted_total',
    'Stage changes the runner undid, by cause.',
    stages.flatMap(([stage, s]) =>
      Object.entries(s.reverted).map(
        ([cause, n]) => [{ stage, cause }, n ?? 0] as [Record<string, string>, number],
      ),
    ),
  );
  counter(
    'stage_events_total',
    'How stages acted, by event (collapse: char_window, line_window, json_window, diff_window, blocks_window, snip_window).',
    stages.flatMap(([stage, s]) =>
      Object.entries(s.events ?? {}).map(
        ([event, n]) => [{ stage, event }, n ?? 0] as [Record<string, string>, number],
      ),
    ),
  );
  counter(
    'stash_failed_total',
    'Results sent whole because their original could not be stashed.',
    stages.map(([stage, s]) => [{ stage }, s.declined.stash_failed ?? 0]),
  );
  counter('frozen_replayed_total', 'Frozen decisions replayed.', [[{}, stats.frozenReplayed]]);
  counter('fail_open_total', 'Engine failures; the original request was forwarded.', [[{}, stats.failOpen]]);
  counter('unparseable_total', 'Bodies forwarded untouched because they were not the API shape.', [
    [{}, stats.unparseable],
  ]);
  counter('too_large_total', 'Requests refused with 413.', [[{}, stats.tooLarge]]);
  counter(
    'admission_timeouts_total',
    'Model API requests forwarded unmodified after waiting too long to be rewritten.',
    [[{}, stats.admissionTimeouts]],
  );
  counter('upstream_errors_total', 'Requests the upstream could not be reached for (502).', [
    [{}, stats.upstreamErrors],
  ]);
  counter('client_aborts_total', 'Clients that went away before the response ended.', [
    [{}, stats.clientAborts],
  ]);
  lines.push(...windowMetrics(stats, counter), ...savingsMetrics(stats.savings));
  return `${lines.join('\n')}\n`;
}

type Counter = (name: string, help: string, samples: [Record<string, string>, number][]) => void;

/** The window guard's and the calibration's lines of /metrics (counters through `counter`). */
function windowMetrics(stats: ProxyStats, counter: Counter): string[] {
  counter('window_guard_total', 'Requests whose estimate was over their window, by what followed.', [
    [{ outcome: 'fitted' }, stats.windowGuard.events - stats.windowGuard.unfit],
    [{ outcome: 'unfit' }, stats.windowGuard.unfit],
  ]);
  counter('window_guard_results_total', 'Tool results the window guard changed, by action.', [
    [{ action: 'masked' }, stats.windowGuard.masked],
    [{ action: 'collapsed' }, stats.windowGuard.collapsed],
  ]);
  counter(
    'tool_inputs_cleared_total',
    'Old tool calls whose large arguments were cleared, by who cleared them.',
    [
      [{ by: 'mask' }, stats.inputsCleared],
      [{ by: 'window_guard' }, stats.windowGuard.cleared],
    ],
  );
  counter('usage_answers_total', 'Answers whose usage calibrated the token estimate.', [
    [{}, stats.calibration.answers],
  ]);
  return [
    '# HELP spillway_estimate_error_ratio Mean relative error of the input-token estimate against the provider, raw and calibrated.',
    '# TYPE spillway_estimate_error_ratio gauge',
    `spillway_estimate_error_ratio{kind="raw"} ${stats.calibration.meanRawError}`,
    `spillway_estimate_error_ratio{kind="calibrated"} ${stats.calibration.meanCalibratedError}`,
  ];
}
