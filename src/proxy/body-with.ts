import type { RequestView } from '../formats/types.js';
import type { Content } from '../text/blocks.js';
import { spliceJson } from '../text/json-splice.js';

/**
 * The request body with new contents for some of its results (by index in `view.results`): the
 * new values spliced into the client's own bytes, so everything else goes upstream exactly as
 * sent (large numbers, key order, spacing); the re-serialised body only when the bytes do not
 * scan.
 *
 * @example
 * const body = bodyWith({ raw, parsed, view }, new Map([[2, collapsed]]));
 */
export function bodyWith(
  at: { raw: Buffer; parsed: unknown; view: RequestView },
  contents: ReadonlyMap<number, Content>,
): Buffer {
  const edits = at.view.apply(contents);
  return spliceJson(at.raw, at.parsed, edits) ?? Buffer.from(JSON.stringify(at.parsed), 'utf8');
}
