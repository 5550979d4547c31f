import { SpillwayError } from '../errors.js';
import { snip, snipMarker, utf8Bytes, utf8Length } from '../text/index.js';
import { recallIdOf, spillKey } from './ids.js';
import type { PutResult, Store } from './store.js';

/** What cap keeps when no budget (or 0, or a negative one) is given: celeste's 128 KiB. */
export const DEFAULT_CAP_BYTES = 128 * 1024;

export interface CapOptions {
  /** Budget in UTF-8 bytes; 0, negative or absent means {@link DEFAULT_CAP_BYTES}. */
  maxBytes?: number;
  session: string;
  call: string;
  store: Store;
}

export interface CapResult {
  /** The text to send to the model: the result itself, or a snip of it within maxBytes. */
  text: string;
  capped: boolean;
  /** Recall id (`session/call`) when the full output was saved. */
  id?: string;
  /** File path of the spill, for the file store. */
  path?: string;
  /** Bytes of the original result. */
  bytes: number;
  /** Bytes saved (less than `bytes` when the spill file quota cut it). */
  storedBytes?: number;
  /** Why the full output could not be saved; the text is still capped. */
  error?: SpillwayError;
}

function shortReason(err: SpillwayError): string {
  const cause = (err.cause as NodeJS.ErrnoException | undefined)?.code;
  switch (err.code) {
    case 'SPILLWAY_QUOTA':
      return 'the spill quota is full';
    case 'SPILLWAY_BAD_ID':
      return 'the session or call id is not valid';
    case 'SPILLWAY_LOCK_TIMEOUT':
      return 'the store was busy';
    default:
      return cause ? `write failed: ${cause}` : 'write failed';
  }
}

/** Notes from most to least helpful; the longest that leaves room for content wins. */
function noteLadder(
  bytes: number,
  put: PutResult | undefined,
  id: string | undefined,
  path: string | undefined,
  error: SpillwayError | undefined,
): string[] {
  const total = `TRUNCATED: ${bytes} bytes total`;
  if (put && id) {
    const what = put.truncated ? `first ${put.storedBytes} bytes` : 'full output';
    const recall = `recall with spillway_expand id "${id}"`;
    return [
      ...(path ? [`${total}, ${what} saved to: ${path}; ${recall}`] : []),
      `${total}, ${what} saved; ${recall}`,
      total,
    ];
  }
  const reason = error ? ` (${shortReason(error)})` : '';
  return [
    `${total}; the full output could not be saved${reason}; to see the missing part, re-run the command narrower (a line range, grep, head or tail)`,
    `${total}; full output not saved; re-run narrower (grep, head, tail)`,
    total,
  ];
}

/**
 * Caps a tool result at `maxBytes`: under it, the result comes back unchanged; over it, the full
 * result is spilled to the store under `session/call` and the model gets head + tail around a
 * marker that names the total, the recall id and (file store) the path. If the spill cannot be
 * written, the result is still capped, with a note saying how to get the missing part, and the
 * error is returned in `error`. Never throws for store problems; never over `maxBytes`.
 *
 * @example
 * const r = await cap(output, { maxBytes: 16_384, session: 'sess-1', call: 'toolu_01', store: new FileStore() });
 * r.text; // '...head...\n[...snipped 80211 bytes. TRUNCATED: 96595 bytes total, full output saved to: ...]\n...tail...'
 */
export async function cap(result: string | Uint8Array, options: CapOptions): Promise<CapResult> {
  const maxBytes =
    options.maxBytes && options.maxBytes > 0 ? Math.floor(options.maxBytes) : DEFAULT_CAP_BYTES;
  const body = typeof result === 'string' ? utf8Bytes(result) : result;
  const text =
    typeof result === 'string'
      ? result
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  if (body.length <= maxBytes && utf8Length(text) <= maxBytes)
    return { text, capped: false, bytes: body.length };

  let put: PutResult | undefined;
  let id: string | undefined;
  let error: SpillwayError | undefined;
  try {
    const key = spillKey(options.session, options.call);
    put = await options.store.put(key, body);
    id = recallIdOf(key);
  } catch (err) {
    error = SpillwayError.isInstance(err)
      ? err
      : new SpillwayError('SPILLWAY_IO', `cannot save the full output: ${(err as Error).message}`, {
          cause: err,
        });
  }
  const path = put?.path;
  const notes = noteLadder(body.length, put, id, path, error);
  // A note may take at most half the budget, so the content always keeps the other half.
  const note = notes.find((n) => utf8Length(snipMarker(body.length, 'bytes', n)) <= maxBytes / 2);
  return {
    text: snip(text, { budget: maxBytes, unit: 'bytes', note }),
    capped: true,
    bytes: body.length,
    ...(id ? { id } : {}),
    ...(path ? { path } : {}),
    ...(put ? { storedBytes: put.storedBytes } : {}),
    ...(error ? { error } : {}),
  };
}
