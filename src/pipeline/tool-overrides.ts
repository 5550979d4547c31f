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
