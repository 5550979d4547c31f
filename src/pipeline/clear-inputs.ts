import { SpillwayError } from '../errors.js';
import { stashOriginal } from '../store/stash.js';
import type { Store } from '../store/store.js';
import { contentHash, type Original, originalOf } from '../text/content-hash.js';
import { isRecord } from '../text/json-values.js';
import { INPUT_CLEARED_PREFIX, inputClearedMarker, markerIds } from '../text/markers.js';
import type { ToolCallInput } from '../text/tool-call.js';
import type { FrozenDecisions } from './frozen.js';

/** A string argument shorter than this many characters is kept as it is (a path, a command). */
export const MIN_CLEAR_CHARS = 1024;
/** ... and one under this many tokens too: a marker would save next to nothing. */
export const MIN_CLEAR_TOKENS = 256;
/** The stage name a cleared input's decision is frozen under. */
export const CLEAR_INPUTS_STAGE = 'clear_inputs';
// Arguments nested deeper than this are kept: no real tool's schema goes near it.
const MAX_DEPTH = 16;

/** A call whose large arguments would be cleared: the new text, what to stash, what it saves. */
export interface PlannedClear {
  text: string;
  originals: Original[];
  /** Tokens of the cleared strings less those of their markers. */
  saved: number;
}

/**
 * The call's arguments with every string of at least {@link MIN_CLEAR_CHARS} characters and
 * {@link MIN_CLEAR_TOKENS} tokens replaced by a marker naming the stash id of its exact text
 * (nothing is stashed here). The result is JSON of the same shape (objects stay objects, the
 * call's name, paths and small fields stay), so the call stays valid for the API; a freeform
 * input becomes its marker. Undefined when nothing is that large (so for a call cleared before),
 * or its JSON does not parse.
 *
 * @example
 * planClear({ id: 'toolu_1', tool: 'Write', position: 3, text: JSON.stringify({ file_path: 'a.ts', content: big }), freeform: false }, count);
 * // { text: '{"file_path":"a.ts","content":"[tool input cleared: Write content, 5120 tokens; ...] <<sw:...>>"}', originals: [...], saved: 5090 }
 */
export function planClear(call: ToolCallInput, count: (text: string) => number): PlannedClear | undefined {
  // No test for "cleared already": a marker is far under MIN_CLEAR_CHARS, so a cleared call has
  // nothing left to clear, and a large string that merely starts like a marker is cleared too.
  if (call.text.length < MIN_CLEAR_CHARS) return undefined;
  const originals: Original[] = [];
  let saved = 0;
  const clear = (field: string, value: string): string | undefined => {
    // A lone surrogate has no UTF-8: its exact text could not be recalled, so it stays.
    if (value.length < MIN_CLEAR_CHARS || !value.isWellFormed()) return undefined;
    const tokens = count(value);
    if (tokens < MIN_CLEAR_TOKENS) return undefined;
    const original = originalOf(value);
    const marker = inputClearedMarker(call.tool, field, tokens, original.id());
    originals.push(original);
    saved += tokens - count(marker);
    return marker;
  };
  if (call.freeform) {
    const text = clear('', call.text);
    return text === undefined ? undefined : { text, originals, saved };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const cleared = withCleared(parsed, '', 0, clear);
  return originals.length === 0 ? undefined : { text: JSON.stringify(cleared), originals, saved };
}

/** The value with its large strings replaced (a copy where anything changed). */
function withCleared(
  value: unknown,
  path: string,
  depth: number,
  clear: (field: string, value: string) => string | undefined,
): unknown {
  if (typeof value === 'string') return clear(path, value) ?? value;
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v, i) => withCleared(v, `${path}[${i}]`, depth + 1, clear));
  // fromEntries defines own properties: a `__proto__` key (JSON.parse makes it one) stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      withCleared(v, path ? `${path}.${key}` : key, depth + 1, clear),
    ]),
  );
}

/** The key a call's cleared input is frozen under (a result's decision is under its bare id). */
function frozenKey(call: ToolCallInput): [string, string] {
  return [`input:${call.id}`, contentHash(call.text)];
}

/**
 * Stashes the cleared strings (durable before any marker naming them goes out) and freezes the
 * call's new arguments, so every later turn sends the same bytes.
 *
 * @example
 * const planned = planClear(call, count);
 * if (planned) await commitClear(store, frozen, call, planned);
 */
export async function commitClear(
  store: Store,
  frozen: FrozenDecisions | undefined,
  call: ToolCallInput,
  planned: PlannedClear,
  after?: PromiseLike<unknown>,
): Promise<void> {
  await Promise.all(planned.originals.map((original) => stashOriginal(store, original)));
  const [key, hash] = frozenKey(call);
  await frozen?.set(key, hash, { content: planned.text, stage: CLEAR_INPUTS_STAGE }, after);
}

/**
 * The arguments frozen for calls cleared on earlier turns (by index into `calls`): what the
 * provider's cached prefix holds for them.
 *
 * @example
 * const replayed = await replayClearedInputs(frozen, calls); // Map { 3 => '{"file_path":"a.ts","content":"[tool input cleared: ...]"}' }
 */
export async function replayClearedInputs(
  frozen: FrozenDecisions | undefined,
  calls: readonly ToolCallInput[],
): Promise<Map<number, string>> {
  const replayed = new Map<number, string>();
  if (!frozen || !(await frozen.holds(CLEAR_INPUTS_STAGE))) return replayed;
  for (const [index, call] of calls.entries()) {
    if (call.text.length < MIN_CLEAR_CHARS) continue;
    const entry = await frozen.get(...frozenKey(call));
    if (typeof entry?.content === 'string' && entry.stage === CLEAR_INPUTS_STAGE)
      replayed.set(index, entry.content);
  }
  return replayed;
}

/**
 * The calls as a request sends them: those with new arguments in `inputs` (by index) carry them.
 *
 * @example
 * callsAsSent(view.calls, turn.inputs); // the guard weighs what would go out
 */
export function callsAsSent(
  calls: readonly ToolCallInput[],
  inputs: ReadonlyMap<number, string>,
): ToolCallInput[] {
  return calls.map((call, i) => {
    const text = inputs.get(i);
    return text === undefined ? call : { ...call, text };
  });
}

/**
 * The arguments a cleared call stood for, from its cleared text and the stash: every marker
 * string replaced by the text its id recalls. For a JSON call the result is the original's JSON
 * as `JSON.stringify` writes it; a freeform call gives back its exact text. Throws when a
 * marker's id recalls nothing. (For checks: a short string of the original that itself reads
 * like a marker would be taken for one.)
 *
 * @example
 * await restoreInput(cleared.text, false, (id) => recallText(id)); // '{"file_path":"a.ts","content":"...the whole file..."}'
 */
export async function restoreInput(
  text: string,
  freeform: boolean,
  recall: (id: string) => Promise<string>,
): Promise<string> {
  const restore = async (value: string): Promise<string> => {
    if (!value.startsWith(INPUT_CLEARED_PREFIX)) return value;
    const id = markerIds(value)[0];
    if (id === undefined) throw new SpillwayError('SPILLWAY_NOT_FOUND', `no stash id in ${value}`);
    return recall(id);
  };
  if (freeform) return restore(text);
  const walk = async (value: unknown): Promise<unknown> => {
    if (typeof value === 'string') return restore(value);
    if (Array.isArray(value)) return Promise.all(value.map(walk));
    if (typeof value !== 'object' || value === null) return value;
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await walk(v)]));
    return Object.fromEntries(entries);
  };
  return JSON.stringify(await walk(JSON.parse(text)));
}
