import { formatTokenCount } from '../text/index.js';
import type { ReplayReport } from './report.js';

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

const W = 720;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 36 };

function axisY(max: number): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const y = PAD.top + (H - PAD.top - PAD.bottom) * (1 - f);
    return `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}" class="grid"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${esc(formatTokenCount(max * f))}</text>`;
  });
  return ticks.join('');
}

/** Tokens per turn, before and after, as two polylines. */
function turnsChart(report: ReplayReport): string {
  const series = report.longest?.perTurn ?? [];
  if (series.length === 0) return '<p>No turns.</p>';
  const max = Math.max(1, ...series.map((t) => t.before));
  const x = (i: number) => PAD.left + ((W - PAD.left - PAD.right) * i) / Math.max(1, series.length - 1);
  const y = (v: number) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - v / max);
  const line = (key: 'before' | 'after') =>
    series.map((t, i) => `${x(i).toFixed(1)},${y(t[key]).toFixed(1)}`).join(' ');
  return `<svg id="chart-turns" class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="tool-result tokens per request, before and after">
${axisY(max)}
<polyline class="before" points="${line('before')}"/>
<polyline class="after" points="${line('after')}"/>
<text x="${W / 2}" y="${H - 8}" text-anchor="middle">request (turn) 1 to ${series.length} of ${esc(report.longest?.id ?? '')}</text>
<g class="legend"><rect x="${PAD.left + 10}" y="${PAD.top}" width="12" height="12" class="before-fill"/><text x="${PAD.left + 28}" y="${PAD.top + 10}">before</text>
<rect x="${PAD.left + 90}" y="${PAD.top}" width="12" height="12" class="after-fill"/><text x="${PAD.left + 108}" y="${PAD.top + 10}">after</text></g>
</svg>`;
}

/** Horizontal bars of (label, value). */
function bars(id: string, label: string, items: [string, number][]): string {
  if (items.length === 0) return '<p>Nothing to show.</p>';
  const rowH = 26;
  const height = PAD.top + items.length * rowH + 8;
  const left = 150;
  const max = Math.max(1, ...items.map(([, v]) => v));
  const rows = items.map(([name, value], i) => {
    const y = PAD.top + i * rowH;
    const w = ((W - left - 80) * value) / max;
    return `<text x="${left - 8}" y="${y + 16}" text-anchor="end">${esc(name)}</text><rect class="bar" x="${left}" y="${y + 4}" width="${Math.max(1, w).toFixed(1)}" height="16"/><text x="${left + w + 6}" y="${y + 16}">${esc(formatTokenCount(value))}</text>`;
  });
  return `<svg id="${id}" class="chart" viewBox="0 0 ${W} ${height}" role="img" aria-label="${esc(label)}">${rows.join('')}</svg>`;
}

/** The after pane: a line that names a recall id (a marker) is highlighted. */
function withMarkers(text: string): string {
  return esc(text)
    .split('\n')
    .map((line) => (line.includes('&lt;&lt;sw:') ? `<mark>${line}</mark>` : line))
    .join('\n');
}

/** An HTML id for a result, so the failed checks can link to it. */
function anchor(file: string, id: string): string {
  return `result-${Buffer.from(`${file}\0${id}`).toString('base64url').slice(-24)}`;
}

function table(rows: ReplayReport['biggestRewrites']): string {
  if (rows.length === 0) return '<p>No result was rewritten.</p>';
  return `<table class="rewrites"><thead><tr><th>tool</th><th>tokens</th><th>before</th><th>after</th></tr></thead><tbody>
${rows
  .map((r) => {
    const same = r.sameLines
      ? `<tr class="same"><td colspan="4"><small>${r.sameLines} identical line(s) above, left out</small></td></tr>`
      : '';
    return `${same}<tr><td>${esc(r.tool || '(unknown)')}<br><small>${esc(r.id)}<br>${esc(r.actedBy.join(', '))}</small></td><td>${r.tokensBefore} &rarr; ${r.tokensAfter}</td><td><pre>${esc(r.before)}</pre></td><td><pre class="after">${withMarkers(r.after)}</pre></td></tr>`;
  })
  .join('\n')}
</tbody></table>`;
}

/** What one failed check says, in words. */
function failureText(f: ReplayReport['failures'][number]): string {
  if (f.check === 'budget') return `${f.tokens} tokens after spillway, over its budget of ${f.budget}`;
  if (f.check === 'recall') return `marker ${f.markerId} does not recall the original`;
  return `the cached prefix changed at request ${(f.turn ?? 0) + 1}`;
}

/** The failed checks, first on the page, each linked to its entry below. */
function failuresSection(report: ReplayReport): string {
  if (report.failures.length === 0 && report.skipped.length === 0) return '';
  const rows = report.failures
    .map(
      (f) =>
        `<tr><td>${f.check}</td><td>${esc(f.file)}</td><td>${esc(f.tool || '(unknown)')}</td><td><a href="#${anchor(f.file, f.id)}">${esc(f.id)}</a></td><td>${esc(failureText(f))}</td></tr>`,
    )
    .join('\n');
  const details = report.failures
    .map(
      (f) =>
        `<li id="${anchor(f.file, f.id)}"><b>${esc(f.tool || '(unknown)')} ${esc(f.id)}</b> in ${esc(f.file)} (conversation ${esc(f.conversation)}): ${esc(failureText(f))}</li>`,
    )
    .join('\n');
  const skipped = report.skipped.map((s) => `<li><b>${esc(s.file)}</b>: ${esc(s.reason)}</li>`).join('\n');
  return `<section id="failed-checks"><h2 class="bad">Failed checks</h2>
${rows ? `<table><thead><tr><th>check</th><th>file</th><th>tool</th><th>result</th><th>what</th></tr></thead><tbody>\n${rows}\n</tbody></table>\n<ul class="failures">\n${details}\n</ul>` : ''}
${skipped ? `<h3>Files skipped</h3><ul>\n${skipped}\n</ul>` : ''}
</section>`;
}

/**
 * The replay report as one self-contained HTML page: no network, no scripts; charts are inline
 * SVG (tokens per turn, savings by stage, size distribution) and the biggest rewrites a table.
 *
 * @example
 * writeFileSync('report.html', renderHtmlReport(report));
 */
export function renderHtmlReport(report: ReplayReport): string {
  const t = report.totals;
  const saved = t.tokensBefore
    ? (((t.tokensBefore - t.tokensAfter) / t.tokensBefore) * 100).toFixed(1)
    : '0.0';
  const stageSavings = Object.entries(report.stages).map(
    ([name, s]) => [name, Math.max(0, (s?.tokensBefore ?? 0) - (s?.tokensAfter ?? 0))] as [string, number],
  );
  const sizes = report.sizeBuckets.map(
    (b) => [`≤ ${formatTokenCount(b.upTo)} tokens`, b.results] as [string, number],
  );
  const fileRows = report.files
    .map(
      (f) =>
        `<tr><td>${esc(f.file)}</td><td>${esc(f.format)}</td><td>${f.toolResults}</td><td>${f.tokensBefore}</td><td>${f.tokensAfter}</td><td>${f.overWindowBefore} &rarr; ${f.overWindowAfter}</td><td>${f.violations}</td><td>${f.recallFailures}</td><td>${f.prefixChanges}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spillway replay report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 980px; color: #1d2433; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.kpis { display: flex; gap: 1rem; flex-wrap: wrap; } .kpi { background: #f3f5f9; border-radius: 8px; padding: .75rem 1rem; min-width: 150px; }
.kpi b { display: block; font-size: 1.4rem; } .ok { color: #137333; } .bad { color: #b3261e; }
svg.chart { width: 100%; height: auto; background: #fbfcfe; border: 1px solid #e3e7ef; border-radius: 8px; }
svg text { font-size: 11px; fill: #4a5568; } .grid { stroke: #e3e7ef; }
polyline { fill: none; stroke-width: 2; } polyline.before { stroke: #c2410c; } polyline.after { stroke: #1d4ed8; }
.before-fill { fill: #c2410c; } .after-fill { fill: #1d4ed8; } rect.bar { fill: #1d4ed8; }
table { border-collapse: collapse; width: 100%; font-size: 12px; } td, th { border-bottom: 1px solid #e3e7ef; padding: 4px 6px; text-align: left; vertical-align: top; }
mark { background: #fde68a; } tr.same td { color: #6b7280; border-bottom: none; }
#failed-checks { border: 2px solid #b3261e; border-radius: 8px; padding: 0 1rem 1rem; margin-top: 1.5rem; }
pre { white-space: pre-wrap; word-break: break-all; max-height: 220px; overflow: auto; margin: 0; font-size: 11px; }
</style></head>
<body>
<h1>spillway replay report</h1>
<p>Preset <b>${esc(report.preset)}</b>, tokens counted with <b>${esc(report.tokenizer)}</b>, ${report.files.length} file(s), ${t.conversations} conversation(s), ${t.turns} request(s).</p>
${failuresSection(report)}
<div class="kpis">
<div class="kpi">tool-result tokens<b>${formatTokenCount(t.tokensBefore)} &rarr; ${formatTokenCount(t.tokensAfter)}</b>${saved}% saved</div>
<div class="kpi">estimated input cost<b>${formatTokenCount(t.costBefore)} &rarr; ${formatTokenCount(t.costAfter)}</b>token-units</div>
<div class="kpi">input cost (USD)<b>$${t.usdWithout.toFixed(2)} &rarr; $${t.usdWith.toFixed(2)}</b>${t.reportedTurns} requests from recorded usage, ${t.estimatedTurns} estimated, ${t.unpricedTurns} unpriced</div>
<div class="kpi">input tokens of all requests<b>${formatTokenCount(t.inputBefore)} &rarr; ${formatTokenCount(t.inputAfter)}</b>estimated; the provider's count where recorded: ${formatTokenCount(t.inputReported)}</div>
<div class="kpi">lines that matter kept<b>${t.needles === 0 ? '-' : `${((100 * t.needlesKept) / t.needles).toFixed(1)}%`}</b>${t.needlesKept} of ${t.needles} in shrunk results</div>
<div class="kpi">requests over the window<b>${t.overWindowBefore} &rarr; ${t.overWindowAfter}</b></div>
<div class="kpi">checks (must be 0)<b class="${t.violations + t.recallFailures + t.prefixChanges === 0 ? 'ok' : 'bad'}">${t.violations} / ${t.recallFailures} / ${t.prefixChanges}</b>violations / recall / prefix</div>
</div>
<p><small>Cost model: ${esc(report.priceModel.description)}. Window counts use tool-result tokens only.</small></p>
<h2>Tool-result tokens per request (the longest conversation)</h2>
${turnsChart(report)}
<h2>Tokens saved by stage</h2>
${bars('chart-stages', 'tokens saved by stage', stageSavings)}
<h2>Size distribution of tool results</h2>
${bars('chart-sizes', 'number of tool results by size', sizes)}
<h2>Biggest rewrites</h2>
${table(report.biggestRewrites)}
<h2>Files</h2>
<table><thead><tr><th>file</th><th>format</th><th>results</th><th>tokens before</th><th>after</th><th>over window</th><th>violations</th><th>recall failures</th><th>prefix changes</th></tr></thead><tbody>
${fileRows}
</tbody></table>
</body></html>
`;
}
