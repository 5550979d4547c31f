import { createHash } from 'node:crypto';
import { putAllIfAbsent, type Store, stashKey } from '../store/index.js';
import { MARKER_TAG, markerIds } from '../text/index.js';

/** The form of a hash the gateways' callers find and ask for: 24 lowercase hex digits. */
export const GATEWAY_HASH = /^[a-f0-9]{24}$/;

/** A spillway marker's tag (the one format, text/markers.ts), with the hash marker after it if any. */
const TAG = new RegExp(`(${MARKER_TAG.source})( hash=[a-f0-9]{24})?`, 'g');

/**
 * The `hash=` a recall id is shown under to the gateways' callers (LiteLLM finds
 * `hash=([a-f0-9]{24})`): the first 12 bytes of the SHA-256 of the id, so the same result gets
 * the same bytes on every turn and on every instance of a fleet.
 *
 * @example
 * hashOfRecallId('LPJNul-wow4m6Dsqxbning'); // 24 lowercase hex digits, always the same
 */
export function hashOfRecallId(id: string): string {
  return createHash('sha256').update(`spillway recall id ${id}`).digest('hex').slice(0, 24);
}

/**
 * Writes ` hash=<24 hex>` after each marker tag spillway wrote into `after` (JSON text of the
 * rewritten messages), beside spillway's own: tags the client already sent in `before` are its
 * own text and left alone, and so is a tag already followed by its hash. Returns the new text
 * and the hashes it issued, each with its recall id.
 *
 * @example
 * withHashMarkers('… spillway_expand <<sw:Ab3>> …', '').text; // '… spillway_expand <<sw:Ab3>> hash=5d41… …'
 */
export function withHashMarkers(
  after: string,
  before: string,
): { text: string; issued: Map<string, string> } {
  const issued = new Map<string, string>();
  if (!after.includes('<<sw:')) return { text: after, issued };
  const theirs = new Set(before.includes('<<sw:') ? markerIds(before) : []);
  const text = after.replace(TAG, (whole, tag: string, written: string | undefined) => {
    const id = tag.slice('<<sw:'.length, -'>>'.length);
    if (theirs.has(id)) return whole;
    const hash = hashOfRecallId(id);
    issued.set(hash, id);
    return written ? whole : `${whole} hash=${hash}`;
  });
  return { text, issued };
}

/** Where a hash's recall id is kept: beside the stashes, a name no stash id takes (22 characters). */
const hashKey = (hash: string) => stashKey(`gh_${hash}`);

/** What a hash names: the recall id of the original, and the tool that produced it when known. */
export interface HashEntry {
  id: string;
  tool?: string;
}

// Hashes this process has written, per store: a turn's markers are the last turn's and one
// more, so the writes are one per new marker, not one per marker per turn. Bounded: past it,
// it starts over.
const writtenTo = new WeakMap<Store, Set<string>>();
const WRITTEN_LIMIT = 100_000;

/**
 * Keeps what each issued hash names in the store, so that any instance sharing it answers a
 * retrieve of it (only hashes spillway issued are ever found). `toolsOf` names the tools of
 * the recall ids not written yet (asked only for those: it hashes results).
 *
 * @example
 * await recordHashes(store, withHashMarkers(text, before).issued, () => new Map([['Ab3', 'Bash']]));
 */
export async function recordHashes(
  store: Store,
  issued: ReadonlyMap<string, string>,
  toolsOf: (ids: ReadonlySet<string>) => ReadonlyMap<string, string> = () => new Map(),
): Promise<void> {
  const written = writtenTo.get(store) ?? new Set<string>();
  writtenTo.set(store, written);
  const fresh = [...issued].filter(([hash]) => !written.has(hash));
  if (fresh.length === 0) return;
  if (written.size + fresh.length > WRITTEN_LIMIT) written.clear();
  const tools = toolsOf(new Set(fresh.map(([, id]) => id)));
  const entries = fresh.map(([hash, id]) => {
    const tool = tools.get(id);
    const entry: HashEntry = tool ? { id, tool } : { id };
    return { key: hashKey(hash), body: Buffer.from(JSON.stringify(entry)) };
  });
  await putAllIfAbsent(store, entries);
  for (const [hash] of fresh) written.add(hash);
}

/**
 * What a hash spillway issued names, or undefined for any other (or a malformed) hash. The hash
 * is checked before it is made into a key.
 *
 * @example
 * await lookupHash(store, '0123456789abcdef01234567'); // { id: 'LPJNul-wow4m6Dsqxbning', tool: 'Bash' }
 */
export async function lookupHash(store: Store, hash: string): Promise<HashEntry | undefined> {
  if (!GATEWAY_HASH.test(hash)) return undefined;
  const body = await store.get(hashKey(hash));
  if (!body) return undefined;
  try {
    const entry = JSON.parse(body.toString('utf8')) as Partial<HashEntry>;
    if (typeof entry.id !== 'string' || hashOfRecallId(entry.id) !== hash) return undefined;
    return typeof entry.tool === 'string' ? { id: entry.id, tool: entry.tool } : { id: entry.id };
  } catch {
    return undefined;
  }
}
