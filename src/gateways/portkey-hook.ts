import type { ApiName } from '../formats/index.js';
import type { ProxyContext } from '../proxy/index.js';
import { compressBody } from './compress.js';
import type { GatewayAnswer } from './compress-route.js';
import { type WorkHold, withinDeadline } from './deadline.js';

/** Portkey's request types a webhook may rewrite (its mutators act on these), by their API. */
const REQUEST_TYPES: Readonly<Record<string, ApiName>> = {
  chatComplete: 'openai-chat',
  messages: 'anthropic',
};

/** What Portkey's `default.webhook` check posts (its `request.headers` left out by Portkey). */
interface HookEvent {
  request?: { json?: unknown };
  requestType?: string;
  eventType?: string;
  metadata?: { session_id?: unknown };
}

// Portkey appends each check's `data` to the client's response: only counts, nothing of the
// conversation, its session or its ids.
const pass = (log: Record<string, unknown>): GatewayAnswer => ({ status: 200, body: { verdict: true }, log });

/**
 * `POST /portkey/hook`: Portkey's webhook check run as an input mutator (`input_mutators` in
 * `x-portkey-config`). Before a chat completion or a messages request goes to the model, it
 * answers `{verdict: true, transformedData: {request: {json}}}` with the body's tool results
 * collapsed; anything else, anything late and any failure pass with `{verdict: true}` and no
 * change, so the original goes on.
 *
 * @example
 * const answer = await portkeyHookRoute(ctx, raw, 2500);
 */
export async function portkeyHookRoute(
  ctx: ProxyContext,
  raw: Buffer,
  deadlineMs: number,
  /** What is left of the deadline (the wait for room and the body's upload spent the rest). */
  leftMs = deadlineMs,
  /** Told when the compression ends (see WorkHold). */
  hold?: WorkHold,
): Promise<GatewayAnswer> {
  let event: HookEvent;
  try {
    event = JSON.parse(raw.toString('utf8')) as HookEvent;
  } catch {
    return pass({ unparseable: 'not JSON' });
  }
  const api = REQUEST_TYPES[event?.requestType ?? ''];
  const json = event?.request?.json;
  if (
    event?.eventType !== 'beforeRequestHook' ||
    !api ||
    !json ||
    typeof json !== 'object' ||
    Array.isArray(json)
  )
    return pass({ skipped: `${event?.eventType ?? '?'} ${event?.requestType ?? '?'}` });
  const session = event.metadata?.session_id;
  const out = await withinDeadline(
    () =>
      compressBody(ctx, {
        body: json as Record<string, unknown>,
        apis: [api],
        session: typeof session === 'string' ? session : undefined,
      }),
    leftMs,
    deadlineMs,
    hold,
  );
  if ('failOpen' in out) return pass({ failOpen: out.failOpen });
  const c = out.value;
  const log = { session: c.session, tokensSaved: c.tokensBefore - c.tokensAfter };
  if (c.failOpen) return pass({ ...log, failOpen: c.failOpen });
  if (!c.body) return pass(log);
  return {
    status: 200,
    body: {
      verdict: true,
      transformedData: { request: { json: c.body } },
      data: { tokens_before: c.tokensBefore, tokens_after: c.tokensAfter },
    },
    log: { ...log, hashes: c.hashes.length },
  };
}
