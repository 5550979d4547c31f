import type { IncomingMessage } from 'node:http';
import type { ProxyContext } from '../proxy/index.js';
import { compressBody } from './compress.js';
import { type WorkHold, withinDeadline } from './deadline.js';

/** An answer of a gateway route: its status, its JSON, and what its log line adds. */
export interface GatewayAnswer {
  status: number;
  body: unknown;
  log?: Record<string, unknown>;
}

/** The transforms an answer reports, as Headroom's callers log them. */
const COLLAPSE = ['spillway:collapse'];

/** The input's messages with nothing saved: bypass, nothing to do, or failing open. */
function unchangedAnswer(messages: unknown[], tokens: number, log: Record<string, unknown>): GatewayAnswer {
  return {
    status: 200,
    body: {
      messages,
      tokens_before: tokens,
      tokens_after: tokens,
      tokens_saved: 0,
      compression_ratio: 1,
      transforms_applied: [],
      transforms_summary: {},
      ccr_hashes: [],
    },
    log,
  };
}

/**
 * `POST /v1/compress`, Headroom's contract as LiteLLM's guardrail and Kong's headroom provider
 * call it: `{messages, model?, token_budget?, config?}` in; the messages with their long tool
 * results collapsed out, with the token figures, the transforms and the `ccr_hashes` a
 * retrieve answers. A request spillway cannot shorten in time, or at all, gets its own
 * messages back with 200: spillway is never the reason a request fails (LiteLLM's default
 * `fail_closed` turns anything else into a 502 for its user).
 *
 * @example
 * const answer = await compressRoute(ctx, req, raw, 2500);
 */
export async function compressRoute(
  ctx: ProxyContext,
  req: IncomingMessage,
  raw: Buffer,
  deadlineMs: number,
  /** What is left of the deadline (the wait for room and the body's upload spent the rest). */
  leftMs = deadlineMs,
  /** Told when the compression ends (see WorkHold). */
  hold?: WorkHold,
): Promise<GatewayAnswer> {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { status: 400, body: { detail: 'the body is not JSON' } };
  }
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages))
    return { status: 400, body: { detail: '"messages" is required: a list of chat messages' } };
  const tokens = Math.ceil(raw.length / 4);
  if (String(req.headers['x-headroom-bypass']).toLowerCase() === 'true')
    return unchangedAnswer(messages, tokens, { bypass: true });
  const session = req.headers['x-spillway-session'];
  const out = await withinDeadline(
    () =>
      compressBody(ctx, {
        body: body as Record<string, unknown>,
        raw,
        apis: ['openai-chat', 'anthropic'],
        session: typeof session === 'string' ? session : undefined,
      }),
    leftMs,
    deadlineMs,
    hold,
  );
  if ('failOpen' in out) return unchangedAnswer(messages, tokens, { failOpen: out.failOpen });
  const c = out.value;
  const log = { session: c.session, tokensSaved: c.tokensBefore - c.tokensAfter };
  if (c.failOpen) return unchangedAnswer(messages, c.tokensBefore, { ...log, failOpen: c.failOpen });
  if (!c.body) return unchangedAnswer(messages, c.tokensBefore, log);
  const saved = c.tokensBefore - c.tokensAfter;
  return {
    status: 200,
    body: {
      messages: c.body.messages,
      tokens_before: c.tokensBefore,
      tokens_after: c.tokensAfter,
      tokens_saved: saved,
      compression_ratio: c.tokensBefore > 0 ? c.tokensAfter / c.tokensBefore : 1,
      transforms_applied: COLLAPSE,
      transforms_summary: { 'spillway:collapse': c.hashes.length },
      ccr_hashes: c.hashes,
    },
    log: { ...log, hashes: c.hashes.length },
  };
}
