/**
 * The dashboard's script, served as /dashboard.js: it reads /dashboard.json every two seconds
 * with the token from the page's address (`#token=...`, never sent to the server in a URL) or
 * typed in, and draws it. Every text from the proxy goes in as text, never as markup: tool
 * outputs can say anything.
 */
export const DASHBOARD_JS = `'use strict';
const $ = (sel) => document.querySelector(sel);
const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
let token = fromHash || sessionStorage.getItem('spillway-token') || '';
if (fromHash) { sessionStorage.setItem('spillway-token', fromHash); history.replaceState(null, '', location.pathname); }
const headers = () => (token ? { 'x-spillway-token': token, authorization: 'Bearer ' + token } : {});
const n = (x) => Math.round(x).toLocaleString('en-US');
const pct = (before, after) => (before > 0 ? (100 * (before - after) / before).toFixed(1) + '%' : '-');
const usd = (x) => '$' + x.toFixed(x < 10 ? 4 : 2);
const mib = (b) => (b / 1048576).toFixed(1) + ' MiB';

function kpi(id, big, small) { $('#' + id + ' b').textContent = big; $('#' + id + ' small').textContent = small; }

function cell(row, text, num) { const td = row.insertCell(); td.textContent = text; if (num) td.className = 'num'; return td; }

function table(id, rows) {
  const body = $('#' + id + ' tbody');
  body.replaceChildren();
  for (const cells of rows) { const tr = body.insertRow(); cells.forEach((c, i) => cell(tr, c, i > 0 && /^[-\\d$]/.test(c))); }
}

// Per minute, two bars: the tokens as they came (grey) and as they were sent (blue).
function chart(timeline) {
  const svg = $('#chart');
  svg.replaceChildren();
  const max = Math.max(1, ...timeline.map((m) => m.before));
  const slot = 590 / Math.max(timeline.length, 30);
  timeline.forEach((m, i) => {
    for (const [key, offset] of [['before', 0], ['after', slot * 0.4]]) {
      const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      const h = Math.max(1, (m[key] / max) * 165);
      bar.setAttribute('x', String(5 + i * slot + offset));
      bar.setAttribute('y', String(175 - h));
      bar.setAttribute('width', String(slot * 0.4));
      bar.setAttribute('height', String(h));
      bar.setAttribute('class', key);
      const title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
      title.textContent = m.minute + ' UTC: ' + n(m[key]) + ' tokens ' + (key === 'before' ? 'as they came' : 'as sent');
      bar.append(title);
      svg.append(bar);
    }
  });
}

// Lines into a pane as text nodes and elements (an output can say anything): marked ones
// highlighted, and the kept one, if any, shown a third of the way down rather than line 1 (the
// pane alone scrolls, not the page).
function fillPane(pre, lines, tagOf) {
  pre.replaceChildren();
  pre.scrollTop = 0;
  let kept;
  lines.forEach((line, i) => {
    const tag = tagOf(line, i);
    const node = tag ? document.createElement(tag === 'kept' ? 'b' : 'mark') : document.createTextNode(line);
    if (tag) node.textContent = line;
    if (tag === 'kept') { node.className = 'kept'; kept = node; }
    pre.append(node, document.createTextNode('\\n'));
  });
  if (kept) pre.scrollTop += kept.getBoundingClientRect().top - pre.getBoundingClientRect().top - pre.clientHeight / 3;
}

let recent = [];
// The decision opened last: an original that arrives after another was opened is not shown.
let opened = 0;
async function open(decision, row) {
  const mine = ++opened;
  document.querySelectorAll('tr.decision.open').forEach((r) => r.classList.remove('open'));
  row.classList.add('open');
  $('#detail').hidden = false;
  const markers = new Set(decision.markers);
  fillPane($('#view'), decision.view.split('\\n'), (_, i) => (i === decision.kept ? 'kept' : markers.has(i) ? 'mark' : ''));
  const original = $('#original');
  $('#recall').textContent = decision.stashId ? 'spillway expand ' + decision.stashId : '(nothing stashed)';
  if (!decision.stashId) { original.textContent = ''; return; }
  original.textContent = 'loading...';
  // Where the kept line is known, the original's lines around it, numbered; else its first page.
  const at = decision.keptLine;
  const lines = at ? '&lines=' + Math.max(1, at - 40) + '-' + (at + 200) : '';
  const recall = (extra) => fetch('/expand?max_tokens=3000&id=' + encodeURIComponent(decision.stashId) + extra, { headers: headers() });
  let res = await recall(lines);
  // Lines the original does not have (its lines numbered otherwise than the view's gaps): its first page.
  if (res.status === 400 && lines) res = await recall('');
  const text = await res.text();
  if (mine !== opened) return;
  if (!res.ok) { original.textContent = 'could not recall it: ' + res.status + ' ' + text; return; }
  fillPane(original, text.split('\\n'), (line) => (at && line.startsWith(at + ':') ? 'kept' : ''));
}

function draw(data) {
  const s = data.stats, v = s.savings, c = v.cost;
  $('#version').textContent = data.version ? 'v' + data.version : '';
  $('#mode').textContent = s.observeOnly ? 'observe mode: nothing is changed' : '';
  $('#mode').className = s.observeOnly ? 'badge' : '';
  kpi('k-tokens', n(s.tokensBefore) + ' \\u2192 ' + n(s.tokensAfter), pct(s.tokensBefore, s.tokensAfter) + ' saved, summed over ' + n(s.requests) + ' requests (bytes/4)');
  const other = c.estimate === 'withoutSpillway' ? c.withoutSpillway : c.withSpillway;
  kpi('k-cost', usd(c.withoutSpillway) + ' \\u2192 ' + usd(c.withSpillway), usd(c.saved) + ' saved (' + pct(c.withoutSpillway, c.withSpillway) + '); billed ' + usd(c.billed) + ', the other side (' + usd(other) + ') estimated; ' + v.reported + ' answers from provider usage, ' + v.estimated + ' estimated, ' + c.unpriced + ' unpriced; prices as of ' + c.pricesAsOf);
  const sent = v.input.input + v.input.cacheRead + v.input.cacheWrite;
  kpi('k-input', n(sent), n(v.input.input) + ' base, ' + n(v.input.cacheRead) + ' cache reads, ' + n(v.input.cacheWrite) + ' cache writes; ' + n(v.inputWithoutSpillway) + ' without spillway (estimated); ' + v.answers + ' answers');
  const g = s.windowGuard;
  kpi('k-guard', g.events + ' events', g.masked + ' results masked, ' + g.collapsed + ' collapsed harder, ' + (g.cleared || 0) + ' call inputs cleared, ' + g.unfit + ' could not fit');
  const cal = s.calibration;
  kpi('k-calibration', cal.answers ? (100 * cal.meanCalibratedError).toFixed(1) + '%' : '-', cal.answers ? 'calibrated (raw ' + (100 * cal.meanRawError).toFixed(1) + '%) over ' + cal.answers + ' answers' : 'not measured yet: checked once a request reaches a quarter of its window');
  const stash = data.stash;
  kpi('k-stash', stash.used === null ? '-' : mib(stash.used), 'of ' + mib(stash.quota) + ' (' + data.storeKind + ' store)');
  $('#k-stash .bar > div').style.width = stash.used === null ? '0' : Math.min(100, (100 * stash.used) / stash.quota) + '%';
  const src = data.atSource;
  kpi('k-source', src.outputs + ' outputs', src.outputs ? n(src.whole) + ' tokens whole \u2192 ' + n(src.shown) + ' shown (bytes/4; the client\u2019s cut and spillway\u2019s note, or its collapse), each recallable; ' + Object.entries(src.byClient).map(([k, r]) => k + ' ' + r.outputs).join(', ') : 'no output cut by a client was captured by the hooks or spillway run');
  chart(v.timeline);
  table('tools', Object.entries(v.byTool).sort((a, b) => b[1].before - a[1].before).map(([t, r]) => [t, n(r.before), n(r.after), pct(r.before, r.after)]));
  table('sessions', Object.entries(v.bySession).reverse().slice(0, 20).map(([k, r]) => [k, String(r.requests), n(r.before), n(r.after), pct(r.before, r.after), String(r.rewrites), String(r.waiting), usd(r.bankedUsd)]));
  if (JSON.stringify(v.recent.map((d) => d.at + d.stashId)) !== JSON.stringify(recent.map((d) => d.at + d.stashId))) {
    recent = v.recent.slice().reverse();
    const body = $('#recent tbody');
    body.replaceChildren();
    for (const d of recent) {
      const tr = body.insertRow();
      tr.className = 'decision';
      [new Date(d.at).toLocaleTimeString(), d.tool, d.stages.join(', '), n(d.tokensBefore), n(d.tokensAfter), d.stashId || '-'].forEach((t, i) => cell(tr, t, i === 3 || i === 4));
      tr.addEventListener('click', () => open(d, tr));
    }
  }
  $('#updated').textContent = new Date().toLocaleTimeString();
}

// Asked for a token: no more asking until one is typed in.
let waitingForToken = false;
// One read at a time: a slow proxy is not asked again before it answers.
let reading = false;
async function refresh() {
  if (waitingForToken || reading) return;
  reading = true;
  try {
    const used = token;
    const res = await fetch('/dashboard.json', { headers: headers() });
    // A token typed in while this read was out is tried at once.
    if (res.status === 401 && used !== token) { setTimeout(refresh, 0); return; }
    if (res.status === 401) { waitingForToken = true; $('#login').style.display = 'block'; $('#main').hidden = true; return; }
    if (!res.ok) throw new Error(res.status + ' ' + (await res.text()));
    $('#login').style.display = 'none';
    $('#main').hidden = false;
    $('#error').textContent = '';
    draw(await res.json());
  } catch (err) {
    $('#error').textContent = 'cannot reach the proxy: ' + err.message;
  } finally {
    reading = false;
  }
}

$('#login').addEventListener('submit', (e) => {
  e.preventDefault();
  token = $('#token').value.trim();
  sessionStorage.setItem('spillway-token', token);
  waitingForToken = false;
  refresh();
});
refresh();
setInterval(refresh, 2000);
`;
