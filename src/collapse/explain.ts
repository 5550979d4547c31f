import { ciStructure, rareLines, scanLines } from '../signals/index.js';
import { stashId } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { RARITY_BELOW } from './important.js';
import { selectLines } from './lines.js';
import { DEFAULT_COLLAPSE_MAX_TOKENS, DEFAULT_WINDOW_LINES } from './options.js';
import { type CollapseWindow, collapseText } from './text.js';

/** What collapse keeps of a text and why, line by line (what `spillway explain` prints). */
export interface CollapseExplanation {
  lines: number;
  chars: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The token budget collapse worked to. */
  budget: number;
  /** @deprecated The budget's former name, the same number. */
  maxTokens: number;
  /** `none` when the text fits the budget as it is. */
  window: CollapseWindow | 'snip' | 'none';
  /** Lines kept in a line window, numbered from 1, with why (`head`, `error core/error-word`, `rare`, ...). */
  kept: { line: number; why: string; text: string }[];
  /** Runs of lines left out, numbered from 1, inclusive. */
  omitted: [number, number][];
  /** Lines the signal rules named in the whole text, by rule id. */
  rules: Record<string, number>;
  /** Whether rarity was asked (the rules named few lines) and how many rare lines it found. */
  rarity: { asked: boolean; found: number };
  /** A CI job's log as its layout reads (numbered from 1): the step that failed, its exit lines, the chores passed over. */
  ci?: {
    failed?: { line: number; rule: string };
    exits: { line: number; rule: string }[];
    chores: { from: number; to: number; rule: string }[];
    /** The runner's timestamps are left off the kept lines. */
    stamped: boolean;
  };
  /** What the model sees. */
  text: string;
}

/**
 * Collapses `text` as the collapse stage would and tells why each kept line is kept: the rule
 * that named it, rarity, the head or the tail, context. Nothing is stashed.
 *
 * @example
 * const why = await explainCollapse(log, { tokenizer: getTokenizer('o200k') });
 * why.kept.find((k) => k.why.startsWith('error'))?.line; // 3101
 */
export async function explainCollapse(
  text: string,
  options: {
    tokenizer: Tokenizer;
    /** The token budget (default {@link DEFAULT_COLLAPSE_MAX_TOKENS}). */
    budget?: number;
    /** @deprecated The budget's former name; `budget` wins when both are given. */
    maxTokens?: number;
    headLines?: number;
    tailLines?: number;
    /** What the call asked about (queryTerms of its arguments). */
    query?: readonly string[];
  },
): Promise<CollapseExplanation> {
  const { tokenizer } = options;
  const budget = options.budget ?? options.maxTokens ?? DEFAULT_COLLAPSE_MAX_TOKENS;
  const headLines = options.headLines ?? DEFAULT_WINDOW_LINES;
  const tailLines = options.tailLines ?? DEFAULT_WINDOW_LINES;
  const scan = scanLines(text);
  const rules: Record<string, number> = {};
  for (const f of scan.important) if (f.rule) rules[f.rule] = (rules[f.rule] ?? 0) + 1;
  const asked = scan.important.length < RARITY_BELOW;
  const id = stashId(text);
  const out = await collapseText(
    text,
    { budget, headLines, tailLines, query: options.query },
    { tokenizer, id: () => id, stash: async () => {} },
  );
  const shown = out.action === 'acted' ? out.text : text;
  const base = {
    lines: text.endsWith('\n') ? scan.lines - 1 : scan.lines,
    chars: text.length,
    tokensBefore: tokenizer.count(text),
    tokensAfter: tokenizer.count(shown),
    budget,
    maxTokens: budget,
    window: out.action === 'acted' ? out.window : ('none' as const),
    rules,
    rarity: { asked, found: asked ? rareLines(text, scan.lines).length : 0 },
    text: shown,
    ...ciOf(text),
  };
  const selection =
    out.action === 'acted' && out.window === 'line'
      ? selectLines(text, { budget, headLines, tailLines, tokenizer, id, query: options.query ?? [] })
      : undefined;
  if (!selection) return { ...base, kept: [], omitted: [] };
  const lines = text.split('\n');
  // A text that ends with a line end has no line after it, though the selection may keep it.
  const kept = [...selection.reasons]
    .filter(([line]) => line < base.lines)
    .sort(([a], [b]) => a - b)
    .map(([line, why]) => ({ line: line + 1, why, text: lines[line] ?? '' }));
  const omitted: [number, number][] = [];
  let next = 1;
  for (const k of kept) {
    if (k.line > next) omitted.push([next, k.line - 1]);
    next = k.line + 1;
  }
  if (next <= base.lines) omitted.push([next, base.lines]);
  return { ...base, kept, omitted };
}

/** The CI layout as explain shows it, lines numbered from 1; nothing for any other text. */
function ciOf(text: string): Pick<CollapseExplanation, 'ci'> {
  const ci = ciStructure(text);
  if (!ci || (ci.steps.length === 0 && ci.exits.length === 0)) return {};
  const one = (l: { line: number; rule: string }) => ({ line: l.line + 1, rule: l.rule });
  return {
    ci: {
      ...(ci.failed ? { failed: one(ci.failed) } : {}),
      exits: ci.exits.map(one),
      chores: ci.chores.map((c) => ({ from: c.line + 1, to: c.to + 1, rule: c.rule })),
      stamped: ci.stamped,
    },
  };
}
