import type { ServerResponse } from 'node:http';
import { httpStatusOf, SpillwayError } from '../../errors.js';
import { expand, recallAll } from '../../store/recall/index.js';
import type { ProxyContext } from '../context.js';
import { sendJson, sendText } from '../http/index.js';

function whole(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name);
  if (value === null) return undefined;
  if (!/^\d+$/.test(value))
    throw new SpillwayError('SPILLWAY_BAD_INPUT', `${name} must be a whole number >= 0, got "${value}"`);
  return Number(value);
}

/**
 * `GET /expand?id=ID`: a stored original, as `spillway_expand` answers it: `grep=P` (with
 * `context=N`, `ignore_case=1`), `lines=A-B`, `field=/json/pointer` (the lines of a string inside a JSON original), `max_tokens=N`, `offset=N`; or `raw=1` for the
 * original bytes exactly, with no footer.
 *
 * @example
 * if (path === '/expand') return expandRoute(ctx, url, res);
 */
export async function expandRoute(ctx: ProxyContext, url: URL, res: ServerResponse): Promise<void> {
  const params = url.searchParams;
  const id = params.get('id') ?? '';
  try {
    if (params.get('raw') === '1') {
      const body = await recallAll(id, { store: ctx.store });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
      res.end(body);
      return;
    }
    // A client that goes away stops the search (a grep over 50 MB is not left running).
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const text = await expand(ctx.store, {
      signal: gone.signal,
      id,
      grep: params.get('grep') ?? undefined,
      context: whole(params, 'context'),
      ignoreCase: params.get('ignore_case') === '1',
      lines: params.get('lines') ?? undefined,
      field: params.get('field') ?? undefined,
      maxTokens: whole(params, 'max_tokens'),
      offset: whole(params, 'offset'),
    });
    sendText(res, 200, 'text/plain; charset=utf-8', text);
  } catch (err) {
    const code = SpillwayError.isInstance(err) ? err.code : 'SPILLWAY_IO';
    sendJson(res, httpStatusOf(err), { error: { type: code, message: (err as Error).message } });
  }
}
