import type { Unit } from './markers.js';

/**
 * The smallest budget spillway takes, in each unit: what a marker needs beside some content.
 * Below it a cut could not say what it left out, so such a budget is refused where it is given.
 * - tokens: the longest marker collapse writes (the JSON header counting items, keys, strings
 *   and nested values: 66 o200k or cl100k tokens) and a line of content beside it. Below it a
 *   character window keeps a 200-character cue whatever the budget (so the budget would be
 *   exceeded, not honoured); from it up, the budget is.
 * - bytes and chars: snip's marker for the largest count (`\n[...snipped 9007199254740991
 *   bytes...]\n`, 41) and a few characters of each end.
 */
export const MIN_BUDGET: Readonly<Record<Unit, number>> = { tokens: 100, bytes: 48, chars: 48 };

/**
 * What is wrong with a budget, or undefined when it may be used: a number, whole, no smaller
 * than {@link MIN_BUDGET} in its unit.
 *
 * @example
 * budgetProblem(2000, 'tokens'); // undefined
 * budgetProblem(10, 'tokens'); // '10 is below the smallest budget, 100 tokens (room for a marker and a line beside it)'
 */
export function budgetProblem(value: number, unit: Unit): string | undefined {
  if (!Number.isSafeInteger(value)) return `${value} is not a whole number of ${unit}`;
  if (value < MIN_BUDGET[unit])
    return `${value} is below the smallest budget, ${MIN_BUDGET[unit]} ${unit} (room for a marker and a line beside it)`;
  return undefined;
}
