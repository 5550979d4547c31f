import type { ServerResponse } from 'node:http';
import { readAtSource } from '../../store/index.js';
import type { ProxyContext } from '../context.js';
import { sendJson } from '../http/index.js';
import { DASHBOARD_HTML, DASHBOARD_JS, viewLines } from '../metrics/dashboard/index.js';
import { AT_SOURCE_DAYS } from './observe.js';

// The page runs its one script from here and reads its data from here; nothing else loads.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sendPage(res: ServerResponse, contentType: string, text: string): void {
  res.writeHead(200, {
    ...PAGE_HEADERS,
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page, naming the recall token where this proxy keeps it (SPILLWAY_HOME may be anywhere). */
function dashboardPage(tokenFile: string | undefined): string {
  return DASHBOARD_HTML.replace('TOKEN_FILE', escapeHtml(tokenFile ?? '~/.spillway/token'));
}

/**
 * `GET /` and `GET /dashboard.js`: the live dashboard's page and script. They hold no data (it
 * comes from /dashboard.json, behind the tokens), so a browser can load them without a header.
 *
 * @example
 * if (path === '/') return dashboardPageRoute(res, 'page', ctx.recallTokenFile);
 */
export function dashboardPageRoute(
  res: ServerResponse,
  which: 'page' | 'script',
  tokenFile: string | undefined,
): void {
  if (which === 'page') sendPage(res, 'text/html; charset=utf-8', dashboardPage(tokenFile));
  else sendPage(res, 'text/javascript; charset=utf-8', DASHBOARD_JS);
}

/**
 * `GET /dashboard.json`: what the dashboard draws: the counters and savings (with the start of
 * what the model saw of each recent decision: outputs, so behind the same tokens as /expand;
 * its marker lines and the line kept for a signal, read here only when the page asks), and
 * the stash's size against its quota.
 *
 * @example
 * if (path === '/dashboard.json') return dashboardDataRoute(ctx, res);
 */
export async function dashboardDataRoute(ctx: ProxyContext, res: ServerResponse): Promise<void> {
  const used = (await ctx.store.usedBytes?.().catch(() => undefined)) ?? null;
  const atSource = await readAtSource(ctx.store, { days: AT_SOURCE_DAYS, now: new Date() });
  const savings = ctx.stats.savings;
  const recent = savings.recent.map((d) => ({ ...d, ...viewLines(d.view) }));
  sendJson(res, 200, {
    version: ctx.version,
    sessions: ctx.sessions.size,
    stats: { ...ctx.stats, savings: { ...savings, recent } },
    atSource,
    storeKind: ctx.store.kind,
    stash: { used, quota: ctx.store.limits.maxTotalBytes },
  });
}
