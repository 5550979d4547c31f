import type { ByteStore } from './byte-store.js';
import { FROZEN_PREFIX, STASH_DIR } from './ids.js';
import {
  evictions,
  idleEvictions,
  isLive,
  type Liveness,
  type SessionUsage,
  stashIdsNamed,
} from './quota.js';

/** Reads or removals in flight at once: on a shared store each is a round trip, on disk an open file. */
const AT_ONCE = 16;

/** Runs `fn` on every item, AT_ONCE at a time; the results in order. */
async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let at = 0; at < items.length; at += AT_ONCE)
    out.push(...(await Promise.all(items.slice(at, at + AT_ONCE).map(fn))));
  return out;
}

/** What a store over its total removes to free the bytes a write needs. */
export interface RoomPlan {
  /** Whole sessions, the longest idle first. */
  sessions: SessionUsage[];
  /** Stash entries, the oldest first. */
  stash: { name: string; bytes: number }[];
  /** The bytes they hold together. */
  freed: number;
}

/** The reads room-making needs: a listing and the bodies of frozen decisions. */
export type RoomView = Pick<ByteStore, 'list' | 'read'>;

/**
 * The over-total rule of every backend, written once: to free `need` bytes, the longest idle
 * sessions go first (never one being written nor one live within `activeAgeMs`), then the
 * oldest stash entries, never one a live session's frozen decision names nor one in `spare`
 * (being written). Reads only; {@link makeRoom} removes what it names. Between this read and
 * that removal another writer may change the store: the worst it costs is a session or an entry
 * more removed than needed, or a write refused that a second look would have let in.
 *
 * @example
 * const plan = await planRoom(bytes, 4096, { keep: 'sess', now: Date.now(), activeAgeMs: ACTIVE_AGE_MS });
 * console.log(`${plan.sessions.length} sessions and ${plan.stash.length} stash entries would go`);
 */
export async function planRoom(
  view: RoomView,
  need: number,
  liveness: Liveness,
  spare: ReadonlySet<string> = new Set(),
): Promise<RoomPlan> {
  const sessions: SessionUsage[] = (await view.list())
    .filter((d) => d.name !== STASH_DIR)
    .map((d) => ({ name: d.name, bytes: d.bytes, newestMs: d.mtimeMs }));
  const plan: RoomPlan = { sessions: idleEvictions(sessions, need, liveness), stash: [], freed: 0 };
  for (const s of plan.sessions) plan.freed += s.bytes;
  if (plan.freed >= need) return plan;
  const spared = new Set(spare);
  for (const session of sessions) {
    if (!isLive(session, liveness)) continue;
    const frozen = (await view.list(session.name)).filter((e) => e.name.startsWith(FROZEN_PREFIX));
    // The ids each log names, taken as it is read: a batch of logs in memory at a time, not all.
    await inBatches(frozen, async (e) => {
      const body = await view.read({ dir: session.name, name: e.name });
      for (const id of stashIdsNamed([body?.toString('utf8') ?? ''])) spared.add(id);
    });
  }
  const oldest = (await view.list(STASH_DIR)).sort(
    (a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  plan.stash = evictions(oldest, need - plan.freed, spared);
  for (const e of plan.stash) plan.freed += e.bytes;
  return plan;
}

/**
 * Frees `need` bytes of `bytes` by {@link planRoom}'s plan: its sessions, then its stash entries.
 *
 * @example
 * await makeRoom(bytes, 4096, { keep: 'sess', now: Date.now(), activeAgeMs: ACTIVE_AGE_MS });
 */
export async function makeRoom(
  bytes: ByteStore,
  need: number,
  liveness: Liveness,
  spare: ReadonlySet<string> = new Set(),
): Promise<RoomPlan> {
  const plan = await planRoom(bytes, need, liveness, spare);
  await inBatches(plan.sessions, (s) => bytes.removeDir(s.name));
  await inBatches(plan.stash, (e) => bytes.remove({ dir: STASH_DIR, name: e.name }));
  return plan;
}
