import { stashKey } from '../../store/ids.js';
import { textOf, withText } from '../../text/blocks.js';
import { collapseCharMarker, collapseLineMarker, hasMarker, STASH_FAILED_NOTE } from '../../text/markers.js';
import { codePointCeil, codePointFloor, codePointLength, utf8Length } from '../../text/measure.js';
import { snip } from '../../text/snip.js';
import type { Tokenizer } from '../../text/tokenizers/tokenizer.js';
import type { Decision, Stage, StageContext, StageItem } from '../types.js';
import { perItem } from './per-item.js';

export interface CollapseOptions {
  /** Token budget of a collapsed result (default 2000). */
  maxTokens?: number;
  /** When set and the model's window is known: the budget is this fraction of the window. */
  maxFrac?: number;
  /** Lines kept at the start and end by the line window (default 20 each; negatives clamp to 0). */
  headLines?: number;
  tailLines?: number;
}

/**
 * When the budget leaves fewer than {@link MIN_CONTENT} characters beside the marker, the
 * character window is this many characters instead, so even `maxTokens: 0` leaves a cue about
 * what to expand. Any larger budget is honoured exactly.
 */
export const CHAR_FLOOR = 200;
export const MIN_CONTENT = 64;

/** What collapse decided about one text, with the facts a report or the CLI shows. */
export type CollapseOutcome =
  | { action: 'declined'; reason: Extract<Decision, { action: 'declined' }>['reason'] }
  | {
      action: 'acted';
      text: string;
      window: 'line' | 'char' | 'snip';
      id?: string;
      tokenizerCalls: number;
      fallback?: 'stash_failed';
    };

function resolvedMaxTokens(
  options: CollapseOptions,
  ctx: Pick<StageContext, 'modelWindow'>,
  override?: number,
): number {
  if (override !== undefined) return override;
  if (options.maxFrac !== undefined && ctx.modelWindow) return Math.floor(options.maxFrac * ctx.modelWindow);
  return options.maxTokens ?? 2000;
}

/** Index just after the n-th newline from the start (n >= 1), or -1. */
function afterNthNewline(text: string, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return -1;
  }
  return at + 1;
}

/** Index of the n-th newline from the end (n >= 1), or -1. */
function nthNewlineFromEnd(text: string, n: number): number {
  let at = text.length;
  for (let i = 0; i < n; i++) {
    at = text.lastIndexOf('\n', at - 1);
    if (at < 0) return -1;
  }
  return at;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * The collapse algorithm on one text, without the pipeline around it. `id` gives the recall id
 * (the original's content hash); `stash` saves the original, before any marker is returned.
 *
 * Tokenizer calls, all on windows (never on the whole input) except the first, which stops
 * early: 1 for the budget gate, 1 for the line window, 1-2 for the path probe and the bare
 * marker, at most 6 secant steps, then bisection of whatever gap is left (log2 of it, usually
 * 0-4 calls; log2(n) in the worst case). A 15 MB one-line JSON takes about 10.
 *
 * @example
 * const out = await collapseText(log, { resolvedMaxTokens: 2000 }, { tokenizer, id: () => stashId(log), stash: () => stash(store, log) });
 */
export async function collapseText(
  text: string,
  options: CollapseOptions & { resolvedMaxTokens: number; isExpandOutput?: boolean; original?: string },
  deps: {
    tokenizer: Tokenizer;
    id: () => string;
    stash: () => Promise<unknown>;
    pathOf?: (id: string) => string | undefined;
  },
): Promise<CollapseOutcome> {
  const { tokenizer } = deps;
  let calls = 0;
  const count = (s: string, limit: number) => {
    calls++;
    return tokenizer.countUpTo(s, limit);
  };
  const maxTokens = Math.max(0, options.resolvedMaxTokens);
  const headLines = Math.max(0, Math.floor(options.headLines ?? 20));
  const tailLines = Math.max(0, Math.floor(options.tailLines ?? 20));

  if (hasMarker(options.original ?? text)) return { action: 'declined', reason: 'already_marked' };
  if (options.isExpandOutput) return { action: 'declined', reason: 'kept_verbatim_after_expand' };
  if (count(text, maxTokens) <= maxTokens) return { action: 'declined', reason: 'below_max_tokens' };

  // Measured only when needed: a one-line input never asks.
  let bytesOfText = -1;
  const bytes = () => {
    if (bytesOfText < 0) bytesOfText = utf8Length(text);
    return bytesOfText;
  };
  // The id is the original's hash, known before anything is stored, so every window is
  // measured with the real marker; the stash itself is written before the marker is returned.
  const id = deps.id();
  const filePath = deps.pathOf?.(id);
  const paths = filePath ? [filePath, undefined] : [undefined];
  let window: 'line' | 'char' | undefined;
  let build: ((id: string) => string) | undefined;

  // Line window: only when it at least halves the bytes and fits the budget (decided on bytes,
  // so the same content always gets the same window).
  const lines = countNewlines(text) + 1;
  // With no lines to keep there is no line window: the character window keeps a cue.
  if (headLines + tailLines > 0 && lines > headLines + tailLines) {
    const headEnd = headLines === 0 ? 0 : afterNthNewline(text, headLines);
    const tailStart = tailLines === 0 ? text.length : nthNewlineFromEnd(text, tailLines) + 1;
    if (headEnd >= 0 && tailStart > 0 && tailStart >= headEnd) {
      const head = text.slice(0, headEnd);
      const tail = text.slice(tailStart);
      const omitted = lines - headLines - tailLines;
      for (const path of paths) {
        const make = (id: string) =>
          `${head}${collapseLineMarker(omitted, id, path)}${tailLines > 0 ? `\n${tail}` : ''}`;
        const candidate = make(id);
        if (utf8Length(candidate) * 2 <= bytes() && count(candidate, maxTokens) <= maxTokens) {
          window = 'line';
          build = make;
          break;
        }
      }
    }
  }

  if (!build) {
    if (text.length <= CHAR_FLOOR) return { action: 'declined', reason: 'too_few_lines_and_chars' };
    const ratio = headLines + tailLines === 0 ? 0.5 : headLines / (headLines + tailLines);
    let totalChars = -1;
    const totalCharsOf = () => {
      if (totalChars < 0) totalChars = codePointLength(text);
      return totalChars;
    };
    // The file path is named only when the marker with it still leaves the floor's worth of
    // content within budget; otherwise the marker drops it rather than crowd out the content.
    let path = paths[paths.length - 1];
    if (paths.length > 1) {
      const withPath = paths[0];
      path = undefined;
      const probe = Math.min(CHAR_FLOOR, text.length - 1);
      const headEnd = codePointFloor(text, Math.round(probe * ratio));
      const sample =
        text.slice(0, headEnd) +
        collapseCharMarker(totalCharsOf(), id, withPath) +
        text.slice(codePointCeil(text, text.length - (probe - headEnd)));
      if (count(sample, maxTokens) <= maxTokens) path = withPath;
    }
    const charWindow = (c: number) => {
      const headEnd = codePointFloor(text, Math.round(c * ratio));
      const tailStart = Math.max(headEnd, codePointCeil(text, text.length - (c - Math.round(c * ratio))));
      const head = text.slice(0, headEnd);
      const tail = text.slice(tailStart);
      const omitted = totalCharsOf() - codePointLength(head) - codePointLength(tail);
      return (id: string) => head + collapseCharMarker(omitted, id, path) + tail;
    };
    // Exact counts of whole windows (each a few KB), never of the input.
    const measure = (c: number) => {
      calls++;
      return tokenizer.count(charWindow(c)(id));
    };
    const most = text.length - 1;
    const markerTokens = Math.min(maxTokens, measure(0));
    // Secant steps on "tokens grow about linearly with characters" land within a few percent
    // of the answer in 2-4 counts; bisection then closes the gap. good always fits (0 is the
    // bare marker, accepted only through the floor below); bad never does.
    let good = 0;
    let bad = Number.POSITIVE_INFINITY;
    let c = Math.max(1, Math.min(maxTokens * 4, most));
    for (let step = 0; step < 6 && bad - good > 1; step++) {
      const t = measure(c);
      if (t <= maxTokens) good = Math.max(good, c);
      else bad = Math.min(bad, c);
      if (t === maxTokens || good >= most) break;
      const perChar = Math.max(1e-9, (t - markerTokens) / c);
      let next = Math.floor((maxTokens - markerTokens) / perChar);
      next = Math.min(next, most, bad - 1);
      if (next <= good) next = good + 1;
      if (next >= bad || next === c) break;
      c = next;
    }
    if (bad === Number.POSITIVE_INFINITY) bad = good >= most ? good : most + 1;
    while (bad - good > 1) {
      const mid = (good + bad) >>> 1;
      if (measure(mid) <= maxTokens) good = mid;
      else bad = mid;
    }
    // A budget that leaves almost no room beside the marker (maxTokens 0 or 50) would give a
    // bare marker with no cue about what to expand: then the window is the 200-character floor.
    if (good < MIN_CONTENT) good = Math.min(CHAR_FLOOR, most);
    window = 'char';
    build = charWindow(good);
  }

  // Smaller for certain when the output has under a third of the input's UTF-16 units (3 bytes
  // a unit at most); only otherwise are the input's bytes counted.
  const built = build(id);
  if (built.length * 3 >= text.length && utf8Length(built) >= bytes())
    return { action: 'declined', reason: 'marker_no_win' };
  try {
    await deps.stash();
  } catch {
    // The request must still fit: snip to the budget, and say nothing can be recalled.
    const text2 = snip(text, {
      budget: Math.max(maxTokens, 1),
      unit: 'tokens',
      tokenizer,
      note: STASH_FAILED_NOTE,
    });
    return { action: 'acted', text: text2, window: 'snip', tokenizerCalls: calls, fallback: 'stash_failed' };
  }
  return { action: 'acted', text: built, window: window as 'line' | 'char', id, tokenizerCalls: calls };
}

/**
 * collapse: the content-agnostic last resort. Keeps a head/tail window under a token budget
 * (a line window when that at least halves the bytes and fits, else a character window fitted
 * exactly to the budget) and stashes the full original behind a `<<sw:ID>>` marker.
 *
 * @example
 * const stage = collapseStage({ maxTokens: 2000, headLines: 20, tailLines: 20 });
 */
export function collapseStage(options: CollapseOptions = {}): Stage {
  return {
    name: 'collapse',
    lossy: true,
    pure: false,
    run: perItem(async (item: StageItem, ctx: StageContext): Promise<Decision> => {
      const text = textOf(item.content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      const out = await collapseText(
        text,
        {
          ...options,
          resolvedMaxTokens: resolvedMaxTokens(options, ctx, item.maxTokens),
          isExpandOutput: item.result.isExpandOutput,
          original: textOf(item.original) ?? text,
        },
        {
          tokenizer: ctx.tokenizer,
          id: () => item.originalId(),
          stash: () => item.stashOriginal(),
          pathOf: ctx.store.pathOf ? (id) => ctx.store.pathOf?.(stashKey(id)) : undefined,
        },
      );
      if (out.action === 'declined') return out;
      return {
        action: 'acted',
        content: withText(item.content, out.text),
        ...(out.id ? { stashId: out.id } : {}),
        ...(out.fallback ? { fallback: out.fallback } : {}),
        detail: { window: out.window, tokenizerCalls: out.tokenizerCalls },
      };
    }),
  };
}
