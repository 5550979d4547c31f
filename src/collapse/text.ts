import { breatheBefore } from '../breathe.js';
import { toError } from '../errors.js';
import { STASH_FAILED_NOTE, snip, utf8Length, WITHOUT_RECALL_EXTRA, withoutRecall } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { CHAR_FLOOR, fitCharWindow } from './char-window.js';
import { compactDiff } from './diff.js';
import { compactJson } from './json.js';
import { type LineSelectionOptions, selectLines } from './lines.js';
import { type CollapseOptions, DEFAULT_WINDOW_LINES } from './options.js';
import { sentenceWindow } from './sentences.js';

/** How collapse shortened a text: by JSON or diff structure, whole lines, or characters. */
export type CollapseWindow = 'json' | 'diff' | 'line' | 'char';

// Budgets tried in turn when a window is not smaller in bytes than its input.
const TIGHTER = [1, 0.9, 0.75, 0.5, 0.25];

/** Below this budget the file path is left out of the marker: it would crowd out content. */
const PATH_MIN_TOKENS = 200;

/** What collapse of one text takes: the stage's options and what this result resolves them to. */
export type CollapseTextOptions = CollapseOptions & {
  budget: number;
  isExpandOutput?: boolean | undefined;
  /** What the call asked about (queryTerms of its arguments): lines naming it are kept too. */
  query?: readonly string[] | undefined;
  /** The text is a file a read returned: its outline is kept too. */
  outline?: boolean | undefined;
};

/** Why collapse left a text as it is (names the engine's decline reasons share). */
export type CollapseDecline =
  | 'kept_verbatim_after_expand'
  | 'below_max_tokens'
  | 'too_few_lines_and_chars'
  | 'marker_no_win';

/** What collapse decided about one text, with the facts a report or the CLI shows. */
export type CollapseOutcome =
  | { action: 'declined'; reason: CollapseDecline }
  | {
      action: 'acted';
      text: string;
      window: CollapseWindow | 'snip';
      id?: string;
      tokenizerCalls: number;
      fallback?: 'stash_failed';
      /** Why the stash failed, with the fallback. */
      stashError?: string;
    };

/**
 * True when `text` is within `budget`. No tokenizer makes more tokens than the text has UTF-8
 * bytes (at most 3 per UTF-16 unit, at least 1): most results are declined without being counted,
 * and a text longer than the budget is not measured in bytes for nothing.
 */
function fits(text: string, budget: number, count: (s: string, limit: number) => number): boolean {
  if (text.length * 3 <= budget) return true;
  if (text.length <= budget && Buffer.byteLength(text, 'utf8') <= budget) return true;
  return count(text, budget) <= budget;
}

// Texts of at least this many characters (and eight characters per token of budget) are
// stashed as soon as they are known not to fit: with them the write overlaps the work.
const EARLY_STASH_CHARS = 64 * 1024;

/**
 * The collapse algorithm on one text, without the engine around it. `id` gives the recall id
 * (the original's content hash); `stash` saves the original, before any marker is returned.
 *
 * Tokenizer calls are on kept lines and windows, never on the whole input, except the first,
 * which stops early: the budget gate; one per line considered and one for the assembled
 * output (lines); a bisection over how many items arrays keep (JSON); a few secant steps and a
 * bisection (character window: a 15 MB one-line JSON takes about 10).
 *
 * @example
 * const out = await collapseText(log, { budget: 2000 }, { tokenizer, id: () => stashId(log), stash: () => stash(store, log) });
 */
export async function collapseText(
  text: string,
  options: CollapseTextOptions,
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
  const budget = Math.max(0, options.budget);
  const headLines = Math.max(0, Math.floor(options.headLines ?? DEFAULT_WINDOW_LINES));
  const tailLines = Math.max(0, Math.floor(options.tailLines ?? DEFAULT_WINDOW_LINES));

  if (options.isExpandOutput) return { action: 'declined', reason: 'kept_verbatim_after_expand' };
  if (fits(text, budget, count)) return { action: 'declined', reason: 'below_max_tokens' };

  // The id is the original's hash, known before anything is stored, so every window is
  // measured with the real marker; the stash itself is written before the marker is returned.
  const id = deps.id();
  // A text this far over its budget always gets a window: its stash is written while the window
  // is chosen, not after. Awaited below; a throw meanwhile must not leave a failure unhandled.
  const early = text.length >= EARLY_STASH_CHARS && text.length > budget * 8 ? deps.stash() : undefined;
  early?.catch(() => {});
  // Just over the budget, the marker can cost more bytes than the lines it stands for: then a
  // tighter budget removes more, so the result is within budget and smaller, never left over it.
  // Smaller for certain under a third of the input's UTF-16 units (3 bytes a unit at most);
  // only otherwise are bytes counted, the input's once.
  let textBytes = -1;
  const smaller = (out: string) => {
    if (out.length * 3 < text.length) return true;
    if (textBytes < 0) textBytes = utf8Length(text);
    return utf8Length(out) < textBytes;
  };
  let built: string | undefined;
  let window: CollapseWindow = 'line';
  for (const share of TIGHTER) {
    await breatheBefore(text.length);
    const chosen = chooseWindow(text, {
      budget: Math.floor(budget * share),
      headLines,
      tailLines,
      tokenizer,
      id,
      path: deps.pathOf?.(id),
      ...(options.query ? { query: options.query } : {}),
      ...(options.outline ? { outline: true } : {}),
    });
    calls += chosen.calls;
    if (!chosen.built) return { action: 'declined', reason: 'too_few_lines_and_chars' };
    ({ built, window } = chosen as { built: string; window: typeof window });
    if (smaller(built)) break;
  }
  if (built === undefined || !smaller(built)) return { action: 'declined', reason: 'marker_no_win' };

  try {
    await (early ?? deps.stash());
  } catch (err) {
    await breatheBefore(text.length);
    const honest = unsavedWindow(text, built, {
      budget,
      headLines,
      tailLines,
      tokenizer,
      id,
      pathOf: deps.pathOf,
    });
    calls += honest.calls;
    return {
      action: 'acted',
      text: honest.text,
      window: honest.window ?? window,
      tokenizerCalls: calls,
      fallback: 'stash_failed',
      stashError: toError(err).message,
    };
  }
  return { action: 'acted', text: built, window, id, tokenizerCalls: calls };
}

/**
 * When the original could not be stashed, the model still gets the lines that matter: the
 * window already chosen, its markers naming nothing to recall (`withoutRecall`), if that fits
 * the budget; else a window chosen again at the budget less the note's line; a token snip only
 * if neither fits. Costs about one more window, never a tokenization of the whole input.
 */
function unsavedWindow(
  text: string,
  built: string,
  o: Omit<LineSelectionOptions, 'path'> & { pathOf?: ((id: string) => string | undefined) | undefined },
): { text: string; window?: CollapseWindow | 'snip'; calls: number } {
  const path = o.pathOf?.(o.id);
  const fits = (out: string) => o.tokenizer.countUpTo(out, o.budget) <= o.budget;
  const first = withoutRecall(built, o.id, path);
  if (fits(first)) return { text: first, calls: 1 };
  const room = o.budget - o.tokenizer.count(WITHOUT_RECALL_EXTRA);
  const again = room > 0 ? chooseWindow(text, { ...o, budget: room, path }) : undefined;
  const second = again?.built === undefined ? undefined : withoutRecall(again.built, o.id, path);
  if (second !== undefined && fits(second))
    return { text: second, window: again?.window, calls: 3 + (again?.calls ?? 0) };
  const text2 = snip(text, {
    budget: Math.max(o.budget, 1),
    unit: 'tokens',
    tokenizer: o.tokenizer,
    note: STASH_FAILED_NOTE,
  });
  return { text: text2, window: 'snip', calls: 4 + (again?.calls ?? 0) };
}

/**
 * Lines first: the ends and the lines that matter, filling the budget (the file path named only
 * when the budget is roomy enough that it does not crowd out content). A character window
 * when there are too few lines, or when whole lines leave a tenth of the budget unused and
 * nothing in them stands out; then the larger of the two is kept.
 */
function chooseWindow(
  text: string,
  o: LineSelectionOptions,
): { built?: string; window: CollapseWindow; calls: number } {
  const path = o.budget >= PATH_MIN_TOKENS ? o.path : undefined;
  // JSON keeps its structure: every key, the first and last items of long arrays, odd ones out.
  const json = compactJson(text, { ...o, path });
  if (json) return { built: json.text, window: 'json', calls: json.calls };
  // A diff keeps its files and hunks: every file and hunk header, the first lines of each hunk.
  const diff = compactDiff(text, { ...o, path });
  if (diff) return { built: diff.text, window: 'diff', calls: diff.calls };
  const lines = selectLines(text, { ...o, path });
  let calls = lines?.tokenizerCalls ?? 0;
  if (lines && (lines.tokens >= o.budget * 0.9 || lines.important > 0))
    return { built: lines.text, window: 'line', calls };
  if (text.length <= CHAR_FLOOR) return { ...(lines ? { built: lines.text } : {}), window: 'line', calls };
  // A page on one line keeps the sentences that matter, where there are some.
  const prose = lines ? undefined : sentenceWindow(text, { ...o, path });
  if (prose) return { built: prose.text, window: 'char', calls: calls + prose.calls };
  const ratio = o.headLines + o.tailLines === 0 ? 0.5 : o.headLines / (o.headLines + o.tailLines);
  const fit = fitCharWindow(
    text,
    ratio,
    o.budget,
    o.id,
    o.path ? [o.path, undefined] : [undefined],
    o.tokenizer,
  );
  calls += fit.calls;
  if (lines && lines.tokens >= fit.tokens) return { built: lines.text, window: 'line', calls };
  return { built: fit.build(o.id), window: 'char', calls };
}
