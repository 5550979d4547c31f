import { ownOutputKey, type Store } from '../store/index.js';
import { type Content, contentHash, contentText, hasMarker } from '../text/index.js';

const EMPTY = new Uint8Array(0);

/**
 * Records an output spillway wrote (one with a marker), so it is recognised as spillway's own
 * when it comes back (through the proxy after `spillway run` or a client hook): a record of its
 * exact hash, not of the ids its markers name. Marker ids are content hashes anyone can compute
 * offline, so a result that merely carries `<<sw:ID>>` proves nothing.
 *
 * @example
 * await recordOwnOutput(store, collapsed.text);
 */
export async function recordOwnOutput(store: Store, content: Content): Promise<void> {
  if (!hasMarker(contentText(content))) return;
  // Bookkeeping: its loss costs at most one more collapse of a result already under budget.
  await store.put(ownOutputKey(contentHash(content)), EMPTY, { durable: false });
}

/**
 * Whether `content` is exactly an output spillway wrote (recorded by recordOwnOutput). Lossy
 * stages leave such a result alone; any other text with markers in it is just text. `hash` is
 * the content's hash when the caller has it already (a result's original is hashed anyway).
 *
 * @example
 * await isOwnOutput(store, resultText); // false for a forged <<sw:ID>>
 */
export async function isOwnOutput(
  store: Store,
  content: Content,
  hash: () => string = () => contentHash(content),
): Promise<boolean> {
  if (!hasMarker(contentText(content))) return false;
  try {
    return (await store.stat(ownOutputKey(hash()))) !== null;
  } catch {
    return false; // a store that cannot answer: treat it as text (it may be shortened again)
  }
}
