import { SpillwayError } from '../errors.js';

/** Where a body lives: a directory (a session, or the stash) and a name in it. */
export interface StoreKey {
  readonly dir: string;
  readonly name: string;
}

/** The directory of content-addressed stash entries; never a session. */
export const STASH_DIR = 'pruned';

/**
 * Names of a session's frozen decisions start with this. Retention reads them to know which
 * stash entries an active session still names (its next turn replays those markers).
 */
export const FROZEN_PREFIX = 'fz_';

/** A stash id in a frozen decision: its own (`"stashId":"ID"`) or one in a marker (`<<sw:ID>>`). */
export const NAMED_STASH_ID = /"stashId":"([A-Za-z0-9_-]{1,128})"|<<sw:([A-Za-z0-9_-]{1,64})>>/g;

const ID_PART = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Why `part` is not a valid id part, or null when it is: 1 to 128 of `A-Z a-z 0-9 _ -`
 * (so no `..`, `/`, `\` or NUL can ever reach a path or a key).
 *
 * @example
 * idPartProblem('../x'); // 'it may only contain letters, digits, "_" and "-"'
 * idPartProblem('call_01'); // null
 */
export function idPartProblem(part: string): string | null {
  if (typeof part !== 'string' || part.length === 0) return 'it is empty';
  if (part.length > 128) return `it is ${part.length} characters long (at most 128)`;
  if (!ID_PART.test(part)) return 'it may only contain letters, digits, "_" and "-"';
  return null;
}

/**
 * Throws `SPILLWAY_BAD_ID` unless `part` is a valid id part.
 *
 * @example
 * assertIdPart('session', 'abc-123'); // ok
 * assertIdPart('call', 'a/b'); // throws SpillwayError SPILLWAY_BAD_ID
 */
export function assertIdPart(what: string, part: string): void {
  const problem = idPartProblem(part);
  if (problem)
    throw new SpillwayError('SPILLWAY_BAD_ID', `invalid ${what} id ${JSON.stringify(part)}: ${problem}`);
}

/**
 * The store key of a spill; ids validated first. A session named `pruned` (the stash's
 * directory) or starting with `_` gets one more `_` in front, so no two sessions share a
 * directory: `pruned` -> `_pruned`, `_pruned` -> `__pruned`.
 *
 * @example
 * spillKey('pruned', 'c1'); // { dir: '_pruned', name: 'c1' }
 * spillKey('_pruned', 'c1'); // { dir: '__pruned', name: 'c1' }
 */
export function spillKey(session: string, call: string): StoreKey {
  assertIdPart('session', session);
  assertIdPart('call', call);
  const dir = session === STASH_DIR || session.startsWith('_') ? `_${session}` : session;
  assertIdPart('session directory', dir);
  return { dir, name: call };
}

/**
 * The store key of a stash entry.
 *
 * @example
 * stashKey('LPJNul-wow4m6Dsqxbning'); // { dir: 'pruned', name: 'LPJNul-wow4m6Dsqxbning' }
 */
export function stashKey(id: string): StoreKey {
  assertIdPart('stash', id);
  return { dir: STASH_DIR, name: id };
}

/**
 * The store key that records an output spillway wrote (by its content hash), so that output
 * is known as spillway's own when it comes back; a text that merely carries a marker is not.
 *
 * @example
 * ownOutputKey('Ab3'); // { dir: 'pruned', name: 'own_Ab3' }
 */
export function ownOutputKey(hash: string): StoreKey {
  assertIdPart('output hash', hash);
  return { dir: STASH_DIR, name: `own_${hash}` };
}

/**
 * The recall id a marker names for a key: `session/call` for a spill, the bare id for a stash entry.
 *
 * @example
 * recallIdOf({ dir: 'sess', name: 'call' }); // 'sess/call'
 */
export function recallIdOf(key: StoreKey): string {
  return key.dir === STASH_DIR ? key.name : `${key.dir}/${key.name}`;
}

/**
 * Parses a recall id (`session/call`, or a stash id) into a key, validating every part.
 *
 * @example
 * parseRecallId('sess/call'); // { dir: 'sess', name: 'call' }
 * parseRecallId('<<sw:LPJNul-wow4m6Dsqxbning>>'); // { dir: 'pruned', name: 'LPJNul-wow4m6Dsqxbning' }
 * parseRecallId('../../etc/passwd'); // throws SPILLWAY_BAD_ID
 */
export function parseRecallId(id: string): StoreKey {
  if (typeof id !== 'string') throw new SpillwayError('SPILLWAY_BAD_ID', 'a recall id must be a string');
  // A model may pass the marker's tag itself: <<sw:ID>>.
  const tag = /^<<sw:([A-Za-z0-9_-]{1,64})>>$/.exec(id.trim());
  const parts = (tag ? (tag[1] as string) : id).split('/');
  if (parts.length === 1) return stashKey(parts[0] as string);
  if (parts.length === 2) {
    const [dir, name] = parts as [string, string];
    assertIdPart('session', dir);
    assertIdPart('call', name);
    return { dir, name };
  }
  throw new SpillwayError(
    'SPILLWAY_BAD_ID',
    `invalid recall id ${JSON.stringify(id)}: expected "SESSION/CALL" or a stash id`,
  );
}
