import { formatTokenCount } from '../text/index.js';
import type { ReplayReport, Totals } from './report.js';

const pct = (before: number, after: number) =>
  before === 0 ? '0.0%' : `${(((before - after) / before) * 100).toFixed(1)}%`;

function row(cells: string[], widths: number[]): string {
  return cells
    .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
    .join('  ');
}

function checks(t: Totals): string {
  return `${t.violations}/${t.recallFailures}/${t.prefixChanges}`;
}

/**
 * The compact table `spillway replay` prints: a line a file, a total, the stages, and the checks
 * that must be zero.
 *
 * @example
 * process.stdout.write(renderSummary(report));
 */
export function renderSummary(report: ReplayReport): string {
  const header = ['file', 'results', 'tokens before', 'after', 'saved', 'over window', 'checks*'];
  const shortName = (f: string) => (f.length > 60 ? `…${f.slice(-59)}` : f);
  const rows = report.files.map((f) => [
    shortName(f.file),
    String(f.toolResults),
    formatTokenCount(f.tokensBefore),
    formatTokenCount(f.tokensAfter),
    pct(f.tokensBefore, f.tokensAfter),
    `${f.overWindowBefore} -> ${f.overWindowAfter}`,
    checks(f),
  ]);
  const t = report.totals;
  rows.push([
    `total (${report.files.length} files)`,
    String(t.toolResults),
    formatTokenCount(t.tokensBefore),
    formatTokenCount(t.tokensAfter),
    pct(t.tokensBefore, t.tokensAfter),
    `${t.overWindowBefore} -> ${t.overWindowAfter}`,
    checks(t),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const lines = [
    row(header, widths),
    ...rows.map((r, i) =>
      i === rows.length - 1
        ? `${'-'.repeat(widths.reduce((a, b) => a + b + 2, -2))}\n${row(r, widths)}`
        : row(r, widths),
    ),
  ];
  const stages = Object.entries(report.stages).map(([name, s]) => {
    const declined = Object.entries(s?.declined ?? {})
      .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
      .slice(0, 3)
      .map(([r, n]) => `${r} ${n}`)
      .join(', ');
    return `  ${name.padEnd(10)} acted ${String(s?.acted ?? 0).padStart(5)}  saved ${formatTokenCount((s?.tokensBefore ?? 0) - (s?.tokensAfter ?? 0)).padStart(6)}  declined: ${declined || '-'}`;
  });
  const largest = report.largestBefore
    .slice(0, 5)
    .map(
      (r) =>
        `  ${formatTokenCount(r.tokensBefore).padStart(6)} -> ${formatTokenCount(r.tokensAfter).padEnd(6)} ${r.tool || '(unknown)'} ${r.id} (${r.actedBy.join(', ') || 'unchanged'})`,
    );
  return [
    `spillway replay, preset ${report.preset}, ${report.tokenizer} tokens`,
    ...failureLines(report),
    ...lines,
    '',
    'stages:',
    ...stages,
    '',
    'largest tool results (tokens before -> after):',
    ...largest,
    '',
    `lines that matter kept in shrunk results (errors, failures, exceptions, summaries, ..., last 5 lines): ${t.needles === 0 ? '-' : `${((100 * t.needlesKept) / t.needles).toFixed(1)}%`} (${t.needlesKept}/${t.needles})`,
    `estimated input cost (tool results, cache reads 0.1x, writes 1.25x): ${formatTokenCount(t.costBefore)} -> ${formatTokenCount(t.costAfter)} token-units (${pct(t.costBefore, t.costAfter)} less); of it, prefix rewrites in batches (${t.maskedInPrefix} results): ${formatTokenCount(t.rewriteCost)}`,
    ...inputLines(t),
    estimateLine(t),
    `window guard: ${t.guardEvents} requests over the input limit after the stages; ${t.guardMasked} results masked, ${t.guardCollapsed} collapsed harder, ${t.guardCleared} old calls' inputs cleared; ${t.guardUnfit} could not fit`,
    ...(t.inputsCleared > 0 ? [`old tool calls' large inputs cleared (recallable): ${t.inputsCleared}`] : []),
    ...(t.atSource > 0
      ? [`captured at the source (a client hook's collapse or note, spillway run): ${t.atSource} results`]
      : []),
    `* checks: budget violations / recall failures / prefix changes; all must be 0${t.violations + t.recallFailures + t.prefixChanges === 0 ? ' (they are)' : ' (THEY ARE NOT)'}`,
    '',
  ].join('\n');
}

/** Input tokens and USD, each figure with its denominator (see replay-cost.ts). */
function inputLines(t: Totals): string[] {
  const usd = (x: number) => `$${x.toFixed(x < 10 ? 4 : 2)}`;
  const requests = t.reportedTurns + t.estimatedTurns;
  return [
    `input of all ${requests} requests (tool results and the text the transcripts record; estimated): ${formatTokenCount(t.inputBefore)} -> ${formatTokenCount(t.inputAfter)} tokens (${pct(t.inputBefore, t.inputAfter)} less); the provider's own count, where recorded (${t.reportedTurns} requests): ${formatTokenCount(t.inputReported)} tokens without spillway`,
    `input cost at each model's price (USD; ${t.reportedTurns} requests from recorded usage, ${t.estimatedTurns} estimated, ${t.unpricedTurns} unpriced): ${usd(t.usdWithout)} without -> ${usd(t.usdWith)} with spillway (${pct(t.usdWithout, t.usdWith)} less, estimated); of it, prefix rewrites: ${usd(t.usdRewrites)}`,
  ];
}

/** The failed checks and skipped files, first, each naming what to look at. */
function failureLines(report: ReplayReport): string[] {
  const out: string[] = [];
  if (report.failures.length > 0) {
    out.push(`FAILED CHECKS (${report.failures.length}${report.failures.length >= 1000 ? '+' : ''}):`);
    for (const f of report.failures.slice(0, 20)) {
      const what =
        f.check === 'budget'
          ? `${f.tokens} tokens > budget ${f.budget}`
          : f.check === 'recall'
            ? `marker ${f.markerId} does not recall the original`
            : `cached prefix changed at request ${(f.turn ?? 0) + 1}`;
      out.push(`  ${f.check.padEnd(6)} ${f.file} ${f.tool || '(unknown)'} ${f.id}: ${what}`);
    }
    if (report.failures.length > 20)
      out.push(`  ... ${report.failures.length - 20} more in --json and the HTML report`);
  }
  if (report.skipped.length > 0) {
    out.push(`SKIPPED FILES (${report.skipped.length}):`);
    for (const s of report.skipped) out.push(`  ${s.file}: ${s.reason.split('\n')[0]}`);
  }
  if (out.length > 0) out.push('');
  return out;
}

/** How close the estimate of a request came to the provider's count, where the transcript has it. */
function estimateLine(t: ReplayReport['totals']): string {
  if (t.estimateSamples === 0) return 'request estimate: no provider counts in these transcripts';
  const pct = (sum: number, n: number) => `${((100 * sum) / Math.max(1, n)).toFixed(1)}%`;
  return `request estimate against the provider's count (${t.estimateSamples} requests): raw off by ${pct(t.estimateRawErrors, t.estimateSamples)} on average (transcripts leave out the system prompt and tool definitions), calibrated by the turn before ${pct(t.estimateCalibratedErrors, t.estimateCalibrated)}`;
}
