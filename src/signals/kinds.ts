/** The kinds of line that matter, most important first. */
export const LINE_KINDS = [
  'error',
  'failure',
  'exception',
  'exit',
  'summary',
  'diagnostic',
  'warning',
  'frame',
  'diff',
] as const;
export type LineKind = (typeof LINE_KINDS)[number];

/**
 * Why a line matters: a rule's kind, `rare` (it stands out in its output, see rarity.ts), or
 * `relevant` (it names what the call asked for, see relevance.ts), or `outline` (it defines
 * something in a file read, see outline.ts).
 */
export type SignalKind = LineKind | 'rare' | 'relevant' | 'outline';

/**
 * How much each kind matters (higher is kept first). A rare line comes after what a rule
 * names as an error, a summary or a diagnostic, before warnings and frames.
 */
export const LINE_WEIGHT: Readonly<Record<SignalKind, number>> = {
  error: 9,
  failure: 9,
  exception: 9,
  exit: 8,
  summary: 7,
  diagnostic: 6,
  relevant: 1,
  outline: 1,
  rare: 1,
  warning: 4,
  frame: 3,
  diff: 2,
};

/**
 * Which kind a line gets when rules of several kinds match it: the first in this order. An
 * exception header names an error; a failed test's line often says "error"; a warning can sit
 * in a frame's path, and a frame is a diagnostic's shape too.
 */
export const KIND_PRECEDENCE: readonly LineKind[] = [
  'exception',
  'failure',
  'error',
  'exit',
  'summary',
  'warning',
  'frame',
  'diagnostic',
  'diff',
];
