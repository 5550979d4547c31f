import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiName } from '../../formats/types.js';
import type { ProxyContext } from '../context.js';
import { forward } from '../forward.js';
import { apiError, BodyTooLarge, readBody, refuseTooLarge } from '../http.js';
import { rewriteRequest } from '../rewrite.js';
import { recordRewrite } from '../stats.js';

/**
 * A model API request: read whole (413 past the limit), rewritten through its conversation,
 * forwarded with the new bytes (or the original ones when nothing changed or it failed open).
 *
 * @example
 * if (api) return rewriteRoute(ctx, req, res, api, path, started);
 */
export async function rewriteRoute(
  ctx: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  api: ApiName,
  path: string,
  started: number,
): Promise<void> {
  let raw: Buffer;
  try {
    raw = await readBody(req, ctx.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    ctx.stats.tooLarge++;
    refuseTooLarge(
      req,
      res,
      apiError(
        api,
        'request_too_large',
        `the request body is over spillway's limit of ${ctx.maxBodyBytes} bytes; raise it with --max-body-bytes`,
      ),
    );
    ctx.log({
      api,
      method: req.method,
      path: req.url,
      status: 413,
      ms: Math.round(performance.now() - started),
    });
    return;
  }
  const first = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const out = await rewriteRequest(
    api,
    raw,
    // Claude Code names its session in a header on every request.
    { spillway: first('x-spillway-session'), client: first('x-claude-code-session-id') },
    { sessions: ctx.sessions, observe: ctx.observe },
    // count_tokens asks about a request without sending it: the conversation does not move on.
    { updateBoundary: path !== '/v1/messages/count_tokens' },
  );
  recordRewrite(ctx.stats, out);
  return forward(ctx, req, res, {
    api,
    body: out.body,
    started,
    logFields: {
      api,
      session: out.session,
      bytesIn: raw.length,
      bytesUp: out.body.length,
      tokensSaved: out.tokensBefore - out.tokensAfter,
      ...(out.failOpen ? { failOpen: out.failOpen.message } : {}),
      ...(out.unparseable ? { unparseable: out.unparseable } : {}),
    },
  });
}
