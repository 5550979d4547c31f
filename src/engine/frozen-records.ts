import type { Content } from '../text/index.js';

// The records of a session's frozen-decisions log: each a JSON object of decision name ->
// decision, and in a fleet the turn mark and the writer beside them.

/** A decision recorded so later turns replay the same bytes. */
export interface FrozenEntry {
  /** The content to send; absent when the result goes out unchanged. */
  content?: Content;
  /** The stage whose output this is. */
  stage?: string;
  stashId?: string;
}

/** A stored decision, or undefined when its bytes are not one. */
export function entryOf(value: unknown): FrozenEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { content, stashId: id } = value as Record<string, unknown>;
  const contentOk = content === undefined || typeof content === 'string' || Array.isArray(content);
  return contentOk && (id === undefined || typeof id === 'string') ? (value as FrozenEntry) : undefined;
}

export function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Where a conversation stood after a turn: what a proxy that did not serve it needs to know. */
export interface TurnMark {
  /** The cached-prefix boundary (messages) after the turn. */
  boundary: number;
  /** When the turn was (ms). */
  seen: number;
}

/** The record key of a turn mark: never a decision's name (those are `fz_` + a hash). */
export const TURN_KEY = '~turn';
/** The record key naming the process that wrote it (in a fleet: which decisions are another's). */
export const WRITER_KEY = '~by';

function turnOf(value: unknown): TurnMark | undefined {
  const { boundary, seen } = (value ?? {}) as Record<string, unknown>;
  return Number.isSafeInteger(boundary) && Number.isFinite(seen)
    ? { boundary: boundary as number, seen: seen as number }
    : undefined;
}

/**
 * The decisions in a record (a JSON object of name -> decision) and its turn mark, or nothing
 * when it is torn (then `torn` is true).
 */
export function recordOf(text: string): {
  entries: [string, FrozenEntry][];
  turn?: TurnMark;
  by?: string;
  torn: boolean;
} {
  const record = parsed(text);
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return { entries: [], torn: true };
  const turn = turnOf((record as Record<string, unknown>)[TURN_KEY]);
  const by = (record as Record<string, unknown>)[WRITER_KEY];
  const entries = Object.entries(record).flatMap(([name, value]) => {
    const entry = name === TURN_KEY || name === WRITER_KEY ? undefined : entryOf(value);
    return entry ? [[name, entry] as [string, FrozenEntry]] : [];
  });
  return { entries, ...(turn ? { turn } : {}), ...(typeof by === 'string' ? { by } : {}), torn: false };
}

/** The mark of the later turn (a conversation that shrank has a smaller boundary after). */
export function laterMark(a: TurnMark | undefined, b: TurnMark | undefined): TurnMark | undefined {
  if (!a || !b) return a ?? b;
  return b.seen >= a.seen ? b : a;
}
