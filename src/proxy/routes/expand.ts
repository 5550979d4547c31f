import type { ServerResponse } from 'node:http';
import { httpStatusOf, SpillwayError } from '../../errors.js';
import { recall } from '../../store/recall.js';
import type { ProxyContext } from '../context.js';
import { sendJson, sendText } from '../http.js';

/**
 * `GET /expand?id=ID&offset=N`: a page of a stored original, as `spillway expand` prints it.
 *
 * @example
 * if (path === '/expand') return expandRoute(ctx, url, res);
 */
export async function expandRoute(ctx: ProxyContext, url: URL, res: ServerResponse): Promise<void> {
  const id = url.searchParams.get('id') ?? '';
  const offsetText = url.searchParams.get('offset') ?? '0';
  try {
    if (!/^\d+$/.test(offsetText))
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `offset must be a whole number >= 0, got "${offsetText}"`,
      );
    const page = await recall(id, { store: ctx.store, offset: Number(offsetText) });
    sendText(res, 200, 'text/plain; charset=utf-8', page.text);
  } catch (err) {
    const code = SpillwayError.isInstance(err) ? err.code : 'SPILLWAY_IO';
    sendJson(res, httpStatusOf(err), { error: { type: code, message: (err as Error).message } });
  }
}
