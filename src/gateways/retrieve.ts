import { SpillwayError } from '../errors.js';
import type { ProxyContext } from '../proxy/index.js';
import { recallAll } from '../store/index.js';
import { heuristicTokenizer } from '../text/tokenizers/index.js';
import type { GatewayAnswer } from './compress-route.js';
import { GATEWAY_HASH, lookupHash } from './hash-marker.js';

const notFound = (hash: string): GatewayAnswer => ({
  status: 404,
  body: { detail: `no original under hash=${hash}: spillway never issued it, or it expired` },
});

/**
 * `GET /v1/retrieve/{hash}` and `POST /v1/retrieve {hash}`: the whole original of a collapsed
 * result, byte for byte as it was stashed, for a hash spillway issued (any other, or a
 * malformed one, is a 404 before anything is looked up). LiteLLM answers its model's
 * `headroom_retrieve` calls with `original_content`.
 *
 * @example
 * const answer = await retrieveRoute(ctx, '5d41402abc4b2a76b9719d91');
 */
export async function retrieveRoute(ctx: ProxyContext, hash: unknown): Promise<GatewayAnswer> {
  if (typeof hash !== 'string' || !GATEWAY_HASH.test(hash))
    return { status: 400, body: { detail: 'hash must be 24 lowercase hex digits' } };
  const entry = await lookupHash(ctx.store, hash);
  if (!entry) return notFound(hash);
  let original: Buffer;
  try {
    original = await recallAll(entry.id, { store: ctx.store });
  } catch (err) {
    if (SpillwayError.isInstance(err) && err.code === 'SPILLWAY_NOT_FOUND') return notFound(hash);
    throw err;
  }
  const text = original.toString('utf8');
  return {
    status: 200,
    body: {
      hash,
      original_content: text,
      original_tokens: heuristicTokenizer.count(text),
      tool_name: entry.tool ?? null,
      recall_id: entry.id,
    },
  };
}
