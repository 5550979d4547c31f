import {
  type ImportantLine,
  LINE_WEIGHT,
  type LineScan,
  outlineLines,
  rareLines,
  relevantLines,
  scanLines,
} from '../signals/index.js';
import type { LineIndex } from './line-index.js';

/**
 * The lines that matter in a line window: those the signal rules name and, where the rules
 * know little, the rare ones; and how they are added, each with its context, within a share of
 * the budget.
 */

// Lines beside an important line that come with it (before, after).
const CONTEXT_BEFORE = 1;
const CONTEXT_AFTER = 1;
// How far above a finding that names no file the file's path is looked for.
const HEADING_REACH = 200;
// The most of what the ends leave that the lines that matter (with their context) may take, and
// the share errors and failures take alone before their context is added.
const IMPORTANT_SHARE = 0.6;
const FINDINGS_SHARE = 0.3;
// The most of the budget rare lines (no rule names them; see signals/rarity.ts) may take: they
// are a guess, and the head and tail are not.
const RARE_SHARE = 0.08;
// The most of the budget a file's outline may take (see signals/outline.ts).
const OUTLINE_SHARE = 0.3;
// Rarity is asked only when the rules name fewer lines than this.
export const RARITY_BELOW = 12;
// Important lines in a row that do not fit before the search stops.
const MAX_MISSES = 32;

/**
 * One pass over `text`: its lines counted, the lines the rules name and (where they name fewer
 * than RARITY_BELOW) the rare ones, in order. `signals` switches either off.
 *
 * @example
 * signalLines('ok\nerror: boom\nok').found[0]?.rule; // 'core/error-word'
 */
export function signalLines(
  text: string,
  signals: { rules?: boolean; rarity?: boolean } = {},
  query: readonly string[] = [],
  outline = false,
): { scan: LineScan; found: readonly ImportantLine[] } {
  const scan = scanLines(text);
  const named = signals.rules === false ? [] : scan.important;
  // Rarity and relevance speak where the rules know little: an output they name many lines of
  // is one they know, and a guess would only take room from its ends.
  const guess = named.length < RARITY_BELOW;
  const rare = guess && signals.rarity !== false ? rareLines(text, scan.lines) : [];
  // A file read is looked at for what the call asked about, however much of it the rules name
  // (a test file is all asserts).
  const asked = guess || outline ? relevantLines(text, scan.lines, query) : [];
  return {
    scan,
    found: withExtraLines(named, [
      ...asked.map((r) => ({ ...r, kind: 'relevant' as const })),
      ...rare.map((r) => ({ ...r, kind: 'rare' as const })),
      // A file read too long for its budget shows its outline, not only its two ends.
      ...(outline ? outlineLines(text).map((r) => ({ ...r, kind: 'outline' as const })) : []),
    ]),
  };
}

/**
 * The lines a rule names and the relevant and rare ones, in order, each once (a rule's name
 * wins, then the first given).
 */
function withExtraLines(
  named: readonly ImportantLine[],
  extra: readonly { line: number; start: number; end: number; kind: 'rare' | 'relevant' | 'outline' }[],
): readonly ImportantLine[] {
  if (extra.length === 0) return named;
  const seen = new Set(named.map((f) => f.line));
  const added: ImportantLine[] = [];
  for (const e of extra) {
    if (seen.has(e.line)) continue;
    seen.add(e.line);
    added.push({ line: e.line, start: e.start, end: e.end, kind: e.kind });
  }
  return [...named, ...added].sort((a, b) => a.line - b.line);
}

/**
 * Adds the lines that matter, most important first: errors and failures alone up to
 * FINDINGS_SHARE of what the ends left (a log of hundreds of faults shows more of them, not each
 * one's neighbours), then their context (and the file a linter's finding is listed under), then
 * further findings with their context, up to IMPORTANT_SHARE; a run of misses ends it.
 */
export function addImportant(
  ranked: readonly ImportantLine[],
  tryAdd: (line: number, partial: boolean, why: string) => boolean,
  heading: (line: number) => number | undefined,
  spent: () => number,
  budget: number,
): number {
  let important = 0;
  let misses = 0;
  let rareSpent = 0;
  let outlineSpent = 0;
  // Shares of what the ends left: where a line costs 80 tokens, the ends take most of a budget.
  const start = spent();
  const share = (part: number) => start + (budget - start) * part;
  const alone: ImportantLine[] = [];
  const withContext = (found: ImportantLine) => {
    if (spent() >= share(IMPORTANT_SHARE)) return;
    const context = `context of ${found.line + 1}`;
    for (let k = 1; k <= CONTEXT_BEFORE; k++) tryAdd(found.line - k, false, context);
    for (let k = 1; k <= CONTEXT_AFTER; k++) tryAdd(found.line + k, false, context);
    const above = heading(found.line);
    if (above !== undefined) tryAdd(above, false, `file of ${found.line + 1}`);
  };
  for (const found of ranked) {
    // Once the findings alone had their share, the ones added get their context.
    if (alone.length > 0 && spent() >= share(FINDINGS_SHARE)) for (const f of alone.splice(0)) withContext(f);
    if (spent() >= share(IMPORTANT_SHARE) || misses >= MAX_MISSES) break;
    // A rare or relevant line is a guess: it comes alone, within a small share; an outline's
    // line comes alone too, within a share of its own.
    const outline = found.kind === 'outline';
    const rare = found.kind === 'rare' || found.kind === 'relevant';
    if (rare && rareSpent >= budget * RARE_SHARE) continue;
    if (outline && outlineSpent >= budget * OUTLINE_SHARE) continue;
    const before = spent();
    if (!tryAdd(found.line, false, found.rule ? `${found.kind} ${found.rule}` : found.kind)) {
      misses++;
      continue;
    }
    misses = 0;
    // A guess comes alone, and is no reason to prefer lines to a character window.
    if (rare || outline) {
      if (rare) rareSpent += spent() - before;
      else outlineSpent += spent() - before;
      continue;
    }
    important++;
    // Faults come alone first; warnings and the rest with their context at once.
    if (LINE_WEIGHT[found.kind] >= LINE_WEIGHT.error && spent() < share(FINDINGS_SHARE)) alone.push(found);
    else withContext(found);
  }
  for (const f of alone) withContext(f);
  return important;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

// A finding that names a line and column but no file: the stylish format of ESLint and
// Stylelint lists findings under their file's path.
const POSITION_ONLY = /^\s+\d+:\d+\s/;

/**
 * The heading of a finding that names no file (see POSITION_ONLY): the nearest line above it
 * that is indented less, with no blank line between; undefined for any other line, or when none
 * is within reach.
 */
export function headingOf(index: LineIndex, line: number): number | undefined {
  const own = index.text(line);
  if (line === 0 || !POSITION_ONLY.test(own)) return undefined;
  const indent = indentOf(own);
  const reach = Math.max(0, line - HEADING_REACH);
  const top = index.walk(line - 1, -1, reach, (_, text) => text.trim() !== '' && indentOf(text) >= indent);
  const above = top - 1;
  if (above < reach) return undefined;
  const text = index.text(above);
  return text.trim() !== '' && indentOf(text) < indent ? above : undefined;
}
