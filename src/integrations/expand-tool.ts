import { z } from 'zod';
import type { Store } from '../store/index.js';
import { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from '../tools/index.js';

/** The recall tool's name and description, as every surface offers them. */
export const EXPAND = { name: EXPAND_TOOL, description: EXPAND_TOOL_DEFINITION.description } as const;

/** The recall tool's input as MCP defines it, as a zod schema for a framework to validate with. */
export const EXPAND_INPUT = z.fromJSONSchema(
  // A deep copy: the definition is readonly in type, the converter takes a plain schema.
  structuredClone(EXPAND_TOOL_DEFINITION.inputSchema) as unknown as Parameters<typeof z.fromJSONSchema>[0],
);

/** The recall tool's input as MCP defines it, as a plain JSON schema (a copy). */
export function expandJsonSchema(): Record<string, unknown> {
  return structuredClone(EXPAND_TOOL_DEFINITION.inputSchema) as unknown as Record<string, unknown>;
}

/**
 * What the recall tool answers the model: the recalled text, or (an unknown id, a bad pattern)
 * an error it reads, as from the MCP tool.
 *
 * @example
 * await expandAnswer(store, { id: 'Ab3', grep: 'error' }); // '12:error: ...'
 */
export async function expandAnswer(store: Store, input: unknown): Promise<string> {
  return (await callExpandTool(store, input)).content.map((c) => c.text).join('\n');
}
