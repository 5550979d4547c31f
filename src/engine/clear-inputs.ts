import { SpillwayError } from '../errors.js';
import { type Store, stashOriginal } from '../store/index.js';
import {
  contentHash,
  INPUT_CLEARED_PREFIX,
  inputClearedMarker,
  isRecord,
  markerIds,
  type Original,
  originalOf,
  replaceJsonStrings,
  type ToolCallInput,
} from '../text/index.js';
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
 * (nothing is stashed here). Only those strings' characters change: the rest of the JSON stays
 * as the client wrote it (the call's name, paths, small fields, numbers, keys, spacing), so the
 * call stays valid for the API and means what it meant; a freeform
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
  // The markers replace the strings' own characters: every other byte of the client's JSON
  // (numbers past 2^53, `1.50`, a key given twice) reaches the model as it was written.
  const text = replaceJsonStrings(call.text, ({ value, path }) => clear(path, value), {
    minChars: MIN_CLEAR_CHARS,
    maxDepth: MAX_DEPTH,
  });
  return originals.length === 0 ? undefined : { text, originals, saved };
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
 * string replaced by the text its id recalls, every other character as it is. A JSON call gives
 * back the original's exact text where its cleared strings were written as `JSON.stringify`
 * writes them (their values exactly in any case); a freeform call its exact text. Throws when a
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
  const idOf = (value: string): string | undefined => {
    if (!value.startsWith(INPUT_CLEARED_PREFIX)) return undefined;
    const id = markerIds(value)[0];
    if (id === undefined) throw new SpillwayError('SPILLWAY_NOT_FOUND', `no stash id in ${value}`);
    return id;
  };
  if (freeform) {
    const id = idOf(text);
    return id === undefined ? text : recall(id);
  }
  JSON.parse(text);
  const ids = new Set<string>();
  replaceJsonStrings(text, ({ value }) => {
    const id = idOf(value);
    if (id !== undefined) ids.add(id);
    return undefined;
  });
  const texts = new Map<string, string>();
  for (const id of ids) texts.set(id, await recall(id));
  return replaceJsonStrings(text, ({ value }) => {
    const id = idOf(value);
    return id === undefined ? undefined : texts.get(id);
  });
}
