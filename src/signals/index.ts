/**
 * Signals: what matters in tool output, as one table of named rules (packs by family), and
 * the classification, pre-filters and library-frame paths derived from it.
 */

export { topAlternatives } from './any-of.js';
export type { CiRole, CiRule } from './ci-rule.js';
export { CI_TIMESTAMP, type CiLine, type CiStructure, ciStructure } from './ci-structure.js';
export { lineKind, lineSignal } from './classify.js';
export { KIND_PRECEDENCE, LINE_KINDS, LINE_WEIGHT, type LineKind, type SignalKind } from './kinds.js';
export { type OutlineLine, outlineLines } from './outline.js';
export { CI_RULES } from './packs/index.js';
export { passedTally } from './passed.js';
export { RARITY_SCAN_CHARS, type RareLine, rareLines } from './rarity.js';
export {
  askedTerms,
  queryTerms,
  type RelevantLine,
  relevantLines,
  saidTerms,
} from './relevance.js';
export type { LibraryPath, SignalPack, SignalRule } from './rule.js';
export { IMPORTANCE_SCAN_CHARS, type ImportantLine, type LineScan, scanLines } from './scan-lines.js';
export { quietLevel, shapeOf, templateOf } from './shape.js';
export { ANY_RULE, CANDIDATE, LIBRARY_FRAME, MIDDLE, MIDDLE_WORDS, PACKS, RULES } from './table.js';
