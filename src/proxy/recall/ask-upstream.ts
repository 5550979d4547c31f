import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { ApiName } from '../../providers/index.js';
import type { ProxyContext } from '../context.js';
import { upstreamFor, upstreamHeaders, upstreamUrl } from '../http/index.js';

/** A whole answer longer than this is not read for its calls: the request fails rather than holds it. */
export const MAX_ANSWER_BYTES = 32 << 20;

/**
 * One round of a request sent to its upstream, with the client's headers (and its path and
 * query) and the round's body. The answer comes unencoded: spillway reads it.
 *
 * @example
 * const answer = await askUpstream(ctx, req, 'anthropic', body, controller.signal);
 */
export async function askUpstream(
  ctx: ProxyContext,
  req: IncomingMessage,
  api: ApiName,
  body: Buffer,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const url = req.url ?? '/';
  const target = upstreamUrl(upstreamFor(ctx.upstreams, url, req.headers, api), url);
  const headers = { ...upstreamHeaders(req.headers, body.length), 'accept-encoding': 'identity' };
  const { request } = await import('undici');
  return request(target, { method: 'POST', headers, body, signal, dispatcher: await ctx.dispatcher() });
}

/**
 * An answer's bytes, up to `MAX_ANSWER_BYTES`; undefined past it (the rest is not read).
 *
 * @example
 * const bytes = await readAnswer(answer.body);
 */
export async function readAnswer(body: AsyncIterable<Buffer>): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
