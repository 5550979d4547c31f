import type { IncomingMessage } from 'node:http';
import { canonicalAddress, isAuthorized, isLoopback, type ProxyContext } from '../proxy/index.js';

/** The header Headroom's callers send its token in (Kong's headroom provider, Portkey's plugin). */
const HEADROOM_TOKEN = 'x-headroom-proxy-token';

/**
 * Why a request to the gateways' routes is refused, or undefined when it may pass. As Headroom's
 * server: a loopback client of this user needs no token (unless the proxy was started with
 * --token); any other client needs the user's recall token (or, with none, the proxy's token),
 * as `Authorization: Bearer T`, `x-headroom-proxy-token: T` or `x-spillway-token: T`. Another
 * local user's connection needs the recall token itself: a retrieve reads this user's outputs.
 *
 * @example
 * const why = await gatewayRefusal(ctx, req);
 * if (why) return sendJson(res, 401, { detail: why });
 */
export async function gatewayRefusal(ctx: ProxyContext, req: IncomingMessage): Promise<string | undefined> {
  const carries = (token: string | undefined) =>
    token !== undefined && isAuthorized(token, req, { bearer: true, headers: [HEADROOM_TOKEN] });
  const stranger = await ctx.owner?.stranger(req);
  if (stranger) return carries(ctx.recallToken) ? undefined : stranger;
  const peer = canonicalAddress(req.socket.remoteAddress ?? '');
  if (!isLoopback(peer))
    return carries(ctx.recallToken ?? ctx.token)
      ? undefined
      : `a client that is not on this machine needs spillway's recall token (Authorization: Bearer T, or ${HEADROOM_TOKEN}: T)`;
  if (ctx.token !== undefined && !carries(ctx.token) && !carries(ctx.recallToken))
    return `this proxy was started with --token: send it (Authorization: Bearer T, or ${HEADROOM_TOKEN}: T)`;
  return undefined;
}
