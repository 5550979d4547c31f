/**
 * The dashboard's page: a shell with no data in it (the data comes from /dashboard.json, behind
 * the same tokens as /expand), its styles inline, its script from /dashboard.js. Nothing loads
 * from anywhere else. TOKEN_FILE stands for the recall token's path (see dashboardPage).
 *
 * Rewrites, results waiting and what is banked are a conversation's (the weighing of a prefix
 * rewrite is made once a request, over all its results, against what that conversation saved):
 * they are By session's columns, and By tool has none, there being no such figure by tool.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spillway</title>
<style>
:root { --fg: #1f2430; --muted: #6b7280; --line: #e3e7ef; --accent: #2563eb; --good: #15803d; --bad: #b3261e; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); margin: 0; padding: 1rem; background: #f7f8fb; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; }
h1 { font-size: 1.3rem; margin: 0; } h2 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
.muted { color: var(--muted); } .badge { background: #fde68a; border-radius: 4px; padding: 0 .4rem; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: .6rem; margin-top: .8rem; }
.kpi { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; min-width: 0; }
.kpi b { display: block; font-size: 1.25rem; margin: .15rem 0; overflow-wrap: anywhere; }
.kpi small { color: var(--muted); }
.bar { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; margin-top: .3rem; }
.bar > div { height: 100%; background: var(--accent); }
svg.chart { width: 100%; height: 180px; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
svg.chart rect.before { fill: #cbd0d9; } svg.chart rect.after { fill: var(--accent); }
.scroll { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
td, th { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; white-space: nowrap; }
td.num, th.num { text-align: right; }
tr.decision { cursor: pointer; } tr.decision:hover, tr.decision.open { background: #eef2ff; }
.panes { display: grid; grid-template-columns: 1fr 1fr; gap: .6rem; margin-top: .6rem; }
.panes > div { min-width: 0; }
pre { white-space: pre-wrap; word-break: break-all; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .5rem; max-height: 420px; overflow: auto; margin: .3rem 0; font-size: 12px; }
mark { background: #fde68a; } .kept { background: #fde2e1; font-weight: 600; }
#login { display: none; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin-top: 1rem; }
#login input { width: min(420px, 100%); font: inherit; padding: .3rem; }
#error { color: var(--bad); }
@media (max-width: 700px) { .panes { grid-template-columns: 1fr; } body { padding: .6rem; } }
</style></head>
<body>
<header><h1>spillway</h1><span id="version" class="muted"></span><span id="mode"></span>
<span class="muted">updated <span id="updated">never</span></span><span id="error"></span></header>
<form id="login"><p>This dashboard reads the proxy's figures and recalls outputs: it needs your recall token
(<code>cat TOKEN_FILE</code>), or the proxy's <code>--token</code>. It stays in this tab only.</p>
<input id="token" type="password" autocomplete="off" placeholder="token"> <button>Open</button></form>
<main id="main" hidden>
<div class="kpis">
<div class="kpi" id="k-tokens">tool-result tokens<b></b><small></small></div>
<div class="kpi" id="k-cost">input cost<b></b><small></small></div>
<div class="kpi" id="k-input">input tokens as sent<b></b><small></small></div>
<div class="kpi" id="k-guard">window guard<b></b><small></small></div>
<div class="kpi" id="k-calibration">token estimate error<b></b><small></small></div>
<div class="kpi" id="k-stash">stash<b></b><small></small><div class="bar"><div></div></div></div>
<div class="kpi" id="k-source">capture at the source (2 days)<b></b><small></small></div>
</div>
<h2>Tool-result tokens per minute <small class="muted">(grey: as they came, blue: as sent)</small></h2>
<svg class="chart" id="chart" viewBox="0 0 600 180" preserveAspectRatio="none" role="img" aria-label="tool-result tokens per minute"></svg>
<h2>By tool</h2><div class="scroll"><table id="tools"><thead><tr><th>tool</th><th class="num">before</th><th class="num">after</th><th class="num">saved</th></tr></thead><tbody></tbody></table></div>
<h2>By session</h2><div class="scroll"><table id="sessions"><thead><tr><th>session</th><th class="num">requests</th><th class="num">before</th><th class="num">after</th><th class="num">saved</th><th class="num" title="requests that rewrote the cached prefix (mask, supersede): each one paid for by what spillway had saved this conversation">rewrites</th><th class="num" title="old results left in place after the latest request because taking them out would not pay yet at this model's cache prices">waiting</th><th class="num" title="what spillway has saved this conversation, at its cache prices: a rewrite is made only when this covers its cost were the conversation to end right after">banked</th></tr></thead><tbody></tbody></table></div>
<h2>Recent decisions <small class="muted">(click one: what the model saw, beside the original)</small></h2>
<div class="scroll"><table id="recent"><thead><tr><th>when</th><th>tool</th><th>stages</th><th class="num">before</th><th class="num">after</th><th>recall id</th></tr></thead><tbody></tbody></table></div>
<div id="detail" hidden><div class="panes"><div><b>what the model saw</b><pre id="view"></pre></div>
<div><b>the original</b> <small class="muted" id="recall"></small><pre id="original"></pre></div></div></div>
</main>
<script src="/dashboard.js"></script>
</body></html>
`;
