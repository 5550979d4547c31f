import { z } from 'zod';
import { flag, wholeNumber } from '../config-schema.js';

/** Per-tool settings: a tool can be exempt, or get its own collapse budget. */
export const ToolOverrideSchema = z.strictObject({
  /** Never touched by any stage. */
  exempt: flag().optional(),
  /** Its own collapse budget, in tokens. */
  maxTokens: wholeNumber(0).optional(),
});
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;

/**
 * The override for a tool: an exact name first, then the longest `prefix*` pattern.
 *
 * @example
 * toolOverride({ 'mcp__*': { exempt: true } }, 'mcp__github__get_issue'); // { exempt: true }
 */
export function toolOverride(
  tools: Readonly<Record<string, ToolOverride>> | undefined,
  tool: string,
): ToolOverride | undefined {
  if (!tools) return undefined;
  if (Object.hasOwn(tools, tool)) return tools[tool];
  let best: string | undefined;
  for (const pattern of Object.keys(tools)) {
    if (
      pattern.endsWith('*') &&
      tool.startsWith(pattern.slice(0, -1)) &&
      (!best || pattern.length > best.length)
    )
      best = pattern;
  }
  return best ? tools[best] : undefined;
}

/** Budgets one request pins (the proxy's `x-spillway-budget` header): for every tool, or per tool. */
export interface BudgetPins {
  all?: number;
  tools: Record<string, number>;
}

/**
 * The tool settings of one request: the configured ones with its pinned budgets over them (an
 * exempt tool stays exempt).
 *
 * @example
 * pinnedTools({ Read: { maxTokens: 8000 } }, { all: 1500, tools: { Bash: 4000 } });
 * // { Read: { maxTokens: 1500 }, '*': { maxTokens: 1500 }, Bash: { maxTokens: 4000 } }
 */
export function pinnedTools(
  tools: Readonly<Record<string, ToolOverride>> | undefined,
  pins: BudgetPins | undefined,
): Record<string, ToolOverride> | undefined {
  if (!pins) return tools;
  // No prototype: a tool a client names "__proto__" is a key like any other.
  const out: Record<string, ToolOverride> = Object.create(null);
  for (const [name, override] of Object.entries(tools ?? {}))
    out[name] = pins.all === undefined ? override : { ...override, maxTokens: pins.all };
  if (pins.all !== undefined) out['*'] = { ...out['*'], maxTokens: pins.all };
  for (const [name, maxTokens] of Object.entries(pins.tools)) out[name] = { ...out[name], maxTokens };
  return out;
}
