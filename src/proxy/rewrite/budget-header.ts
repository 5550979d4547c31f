import type { BudgetPins } from '../../engine/index.js';
import { SpillwayError } from '../../errors.js';

/** The header a client pins collapse budgets with, for one request. */
export const BUDGET_HEADER = 'x-spillway-budget';

const MAX_ENTRIES = 50;
const MAX_TOKENS = 10_000_000;
const TOOL = /^[\w.:/@-]{1,200}\*?$|^\*$/;

/**
 * The budgets an `x-spillway-budget` header pins: `N` for every tool, or `TOOL=N` entries
 * (a `prefix*` pattern matches as in the config's `tools`), comma-separated. Undefined without
 * the header; a clear error for a malformed one.
 *
 * @example
 * parseBudgetHeader('1500'); // { all: 1500, tools: {} }
 * parseBudgetHeader('Bash=4000, mcp__*=800'); // { tools: { Bash: 4000, 'mcp__*': 800 } }
 */
export function parseBudgetHeader(value: string | string[] | undefined): BudgetPins | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(',') : value;
  const bad = (why: string) =>
    new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `${BUDGET_HEADER}: ${why}; send a token budget for every tool ("1500") or per tool ("Bash=4000, mcp__*=800")`,
    );
  const entries = text.split(',').map((e) => e.trim());
  if (entries.length > MAX_ENTRIES) throw bad(`more than ${MAX_ENTRIES} entries`);
  // No prototype: a tool a client names "__proto__" is a key like any other.
  const pins: BudgetPins = { tools: Object.create(null) };
  for (const entry of entries) {
    const eq = entry.lastIndexOf('=');
    const tool = eq < 0 ? undefined : entry.slice(0, eq).trim();
    const number = (eq < 0 ? entry : entry.slice(eq + 1)).trim();
    if (!/^\d{1,8}$/.test(number) || Number(number) > MAX_TOKENS)
      throw bad(`"${entry.slice(0, 80)}" is not a whole number of tokens up to ${MAX_TOKENS}`);
    if (tool === undefined) pins.all = Number(number);
    else if (!TOOL.test(tool)) throw bad(`"${tool.slice(0, 80)}" is not a tool name`);
    else pins.tools[tool] = Number(number);
  }
  return pins;
}
