import type { RequestView } from '../formats/index.js';
import { sessionKey } from '../proxy/index.js';
import { putAllIfAbsent, type Store, type StoreKey, stashKey } from '../store/index.js';
import type { ToolResult } from '../text/index.js';
import { originalOf, shortHash, stashId } from '../text/index.js';

/**
 * The conversation a request to the gateways' contract belongs to. Their callers send no session
 * id (LiteLLM, Kong) or only what their users put in metadata (Portkey), so without one the key
 * is built from what a conversation never changes: its first system text, its first user
 * message, and its first tool call's id (two agents started with the same prompt differ there).
 *
 * @example
 * conversationKey(view, 'ticket-4411'); // 'ticket-4411'
 * conversationKey(view); // 'g_<22 characters>', the same on every later turn
 */
export function conversationKey(view: RequestView, session?: string): string {
  if (session) return sessionKey({ header: session, seed: '' });
  const firstCall = view.calls[0]?.id ?? view.results[0]?.id ?? '';
  return `g_${shortHash(`${view.sessionSeed}\u0000${firstCall}`)}`;
}

/** Where the conversation that first saw a result is kept: by its call id and its content's digest. */
function anchorKey(result: ToolResult): StoreKey {
  const digest = originalOf(result.content, result.originalBytes).hash();
  return stashKey(`ga_${stashId(`${result.id}\u0000${digest}`)}`);
}

/**
 * The conversation a request continues. A history its caller trimmed (the first messages
 * dropped to fit a window) gives a new key; its first result still names the conversation that
 * first saw it, whose decisions (frozen by tool call id and content digest) it then replays, so
 * the results it kept keep their bytes.
 *
 * @example
 * const key = await continuedKey(store, view, conversationKey(view));
 */
export async function continuedKey(store: Store, view: RequestView, key: string): Promise<string> {
  const first = view.results[0];
  if (!first) return key;
  const body = await store.get(anchorKey(first)).catch(() => null);
  const anchored = body?.toString('utf8');
  return anchored && anchored !== key && !sessionKeyProblem(anchored) ? anchored : key;
}

const sessionKeyProblem = (key: string) => sessionKey({ header: key, seed: '' }) !== key;

// Results this process has anchored, per store: each is written once, when its conversation
// first shows it.
const anchoredIn = new WeakMap<Store, Set<string>>();
const ANCHORED_LIMIT = 100_000;

/**
 * Notes the conversation of each result not noted yet (the first to see a result keeps it).
 *
 * @example
 * await anchorResults(store, view.results, key);
 */
export async function anchorResults(
  store: Store,
  results: readonly ToolResult[],
  key: string,
): Promise<void> {
  const anchored = anchoredIn.get(store) ?? new Set<string>();
  anchoredIn.set(store, anchored);
  const fresh = results.filter((r) => !anchored.has(`${key}\u0000${r.id}`));
  if (fresh.length === 0) return;
  if (anchored.size + fresh.length > ANCHORED_LIMIT) anchored.clear();
  const body = Buffer.from(key);
  await putAllIfAbsent(
    store,
    fresh.map((r) => ({ key: anchorKey(r), body })),
  );
  for (const r of fresh) anchored.add(`${key}\u0000${r.id}`);
}
