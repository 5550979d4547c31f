import type { RequestView } from '../../providers/index.js';
import { type Content, spliceJson } from '../../text/index.js';

/**
 * The request body with new contents for some of its results (by index in `view.results`) and
 * new arguments for some of its calls (by index in `view.calls`): the
 * new values spliced into the client's own bytes, so everything else goes upstream exactly as
 * sent (large numbers, key order, spacing); the re-serialised body only when the bytes do not
 * scan.
 *
 * @example
 * const body = bodyWith({ raw, parsed, view }, new Map([[2, collapsed]]));
 * const withInputs = bodyWith({ raw, parsed, view }, new Map(), new Map([[0, clearedArguments]]));
 */
export function bodyWith(
  at: { raw: Buffer; parsed: unknown; view: RequestView },
  contents: ReadonlyMap<number, Content>,
  inputs: ReadonlyMap<number, string> = new Map(),
): Buffer {
  const edits = [...at.view.apply(contents), ...at.view.applyCalls(inputs)];
  return spliceJson(at.raw, at.parsed, edits) ?? Buffer.from(JSON.stringify(at.parsed), 'utf8');
}
