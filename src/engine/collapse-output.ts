import {
  type CollapsedOutput,
  type CollapseOutputOptions,
  collapseOutput as collapseOne,
  collapseWithin as collapseOneWithin,
  SOURCE_MAX_TOKENS as SOURCE_BUDGET,
} from '../collapse/index.js';

/**
 * @deprecated The collapse of one output moved to `spillway/collapse` (collapse/output.ts), built
 * on the text collapse and the stash without a conversation engine; this name stays for old
 * imports.
 */
export const SOURCE_MAX_TOKENS = SOURCE_BUDGET;

/** @deprecated See {@link CollapsedOutput} in `spillway/collapse`. */
export type { CollapsedOutput };

/**
 * @deprecated Use `collapseOutput` from `spillway/collapse` (the same bytes; there the token
 * counts are asked for with `measure`).
 *
 * @example
 * const out = await collapseOutput(await readFile('build.log'), { store, maxTokens: 1800 });
 */
export function collapseOutput(raw: Buffer, options: CollapseOutputOptions): Promise<CollapsedOutput> {
  return collapseOne(raw, { measure: true, ...options });
}

/**
 * @deprecated Use `collapseWithin` from `spillway/collapse`, whose options name the budget
 * `budget` and the character limit `charLimit`.
 *
 * @example
 * const out = await collapseWithin(raw, { store, maxTokens: 9000, maxChars: 40_000 });
 */
export function collapseWithin(
  raw: Buffer,
  options: CollapseOutputOptions & { maxTokens: number; maxChars: number },
): Promise<CollapsedOutput> {
  const { maxTokens, maxChars, ...rest } = options;
  return collapseOneWithin(raw, { measure: true, ...rest, budget: maxTokens, charLimit: maxChars });
}
