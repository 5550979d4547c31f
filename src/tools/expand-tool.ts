import { SpillwayError } from '../errors.js';
import type { Store } from '../store/index.js';
import { expand, MAX_GREP_CONTEXT } from '../store/recall/index.js';

/** The name every marker points the model to. */
export const EXPAND_TOOL = 'spillway_expand';

/** What the model reads about the tool: search first, ranges next, pages last; unknown ids are final. */
export const EXPAND_DESCRIPTION = [
  'Recalls the full original of a tool result that spillway shortened to save context.',
  'Call it when a tool result has a spillway marker (for example "<<sw:ID>>", "lines 21-1480 of 3000 omitted" or "recall with spillway_expand id "SESSION/CALL"") and the omitted part matters for the task; not when what was kept is enough.',
  'Pass the id exactly as the marker gives it (the ID inside <<sw:ID>>, or SESSION/CALL).',
  'Search before you read: grep a pattern (a regular expression; backreferences and lookaround are not supported) to get the matching lines with their line numbers and a few lines of context, or ask for the lines you need by range ("lines": "1480-1520"); markers give the line numbers of what they left out.',
  'With neither, you get a page of about max_tokens tokens (default 4000) whose footer gives the total lines and bytes and the offset of the next page.',
  'If the answer says there is no stored tool result with that id, it expired or never existed: that answer is final, do not retry.',
].join(' ');

/** What ToolSearch matches when a client defers the tool anyway. */
export const EXPAND_SEARCH_HINT =
  'spillway expand recall full original output omitted lines <<sw:ID>> marker shortened truncated tool result grep';

/** The tool as MCP lists it: one definition for stdio and HTTP, its input as JSON Schema. */
export const EXPAND_TOOL_DEFINITION = {
  name: EXPAND_TOOL,
  title: 'Recall a shortened tool result',
  description: EXPAND_DESCRIPTION,
  inputSchema: {
    type: 'object',
    properties: {
      id: {
        type: 'string',
        minLength: 1,
        maxLength: 300,
        description: 'The id the marker names: the ID in <<sw:ID>>, or SESSION/CALL.',
      },
      grep: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description: 'A regular expression: returns the matching lines with their numbers and context.',
      },
      context: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_GREP_CONTEXT,
        description: 'Lines of context around each match (default 2).',
      },
      ignore_case: { type: 'boolean', description: 'Match grep without regard to case.' },
      lines: {
        type: 'string',
        maxLength: 40,
        description: 'A range of lines: "120-180", "500-" (to the end) or "42".',
      },
      field: {
        type: 'string',
        maxLength: 1000,
        description:
          'With lines or grep: a JSON pointer ("/stdout") to a string in a JSON result, whose own lines are meant (its markers number them).',
      },
      max_tokens: {
        type: 'integer',
        minimum: 100,
        maximum: 32000,
        description: 'The most tokens to return (default 4000).',
      },
      offset: {
        type: 'integer',
        minimum: 0,
        description: 'Byte offset of the next page, from the previous footer.',
      },
    },
    required: ['id'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  // Claude Code 2.1.3xx defers MCP tools behind ToolSearch; a marker names this tool, so it
  // asks to be always loaded, and gives ToolSearch the words a model would search with.
  _meta: { 'anthropic/alwaysLoad': true, 'anthropic/searchHint': EXPAND_SEARCH_HINT },
} as const;

type Property = { type: string; minLength?: number; maxLength?: number; minimum?: number; maximum?: number };

/** Why `args` do not fit the tool's input schema, or undefined when they do. */
function argumentProblem(args: unknown): string | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return 'the arguments must be an object';
  const schema = EXPAND_TOOL_DEFINITION.inputSchema;
  const given = args as Record<string, unknown>;
  for (const key of schema.required) if (given[key] === undefined) return `"${key}" is required`;
  for (const [key, value] of Object.entries(given)) {
    const p = (schema.properties as Record<string, Property>)[key];
    if (!p) return `"${key}" is not an argument of ${EXPAND_TOOL}`;
    if (value === undefined) continue;
    if (p.type === 'string') {
      if (typeof value !== 'string') return `"${key}" must be a string`;
      if (p.minLength !== undefined && value.length < p.minLength) return `"${key}" must not be empty`;
      if (p.maxLength !== undefined && value.length > p.maxLength)
        return `"${key}" must be at most ${p.maxLength} characters`;
    } else if (p.type === 'integer') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `"${key}" must be a whole number`;
      if (p.minimum !== undefined && value < p.minimum) return `"${key}" must be at least ${p.minimum}`;
      if (p.maximum !== undefined && value > p.maximum) return `"${key}" must be at most ${p.maximum}`;
    } else if (p.type === 'boolean' && typeof value !== 'boolean') return `"${key}" must be true or false`;
  }
  return undefined;
}

/** What a tools/call of spillway_expand answers. */
export interface ExpandToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * Runs a tools/call of `spillway_expand` against `store`: the recalled text, or an error result
 * (bad arguments, an unknown id) the model can read; never throws.
 *
 * @example
 * await callExpandTool(store, { id: 'Ab3', grep: 'ERROR' }); // { content: [{ type: 'text', text: '12:ERROR ...' }] }
 */
export async function callExpandTool(store: Store, args: unknown): Promise<ExpandToolResult> {
  const problem = argumentProblem(args);
  if (problem)
    return {
      content: [{ type: 'text', text: `Invalid arguments for ${EXPAND_TOOL}: ${problem}` }],
      isError: true,
    };
  const a = args as {
    id: string;
    grep?: string;
    context?: number;
    ignore_case?: boolean;
    lines?: string;
    field?: string;
    max_tokens?: number;
    offset?: number;
  };
  try {
    const text = await expand(store, {
      id: a.id,
      grep: a.grep,
      context: a.context,
      ignoreCase: a.ignore_case,
      lines: a.lines,
      field: a.field,
      pageSize: a.max_tokens,
      offset: a.offset,
    });
    return { content: [{ type: 'text', text }] };
  } catch (err) {
    const message = SpillwayError.isInstance(err)
      ? err.message
      : `could not read the stored output: ${(err as Error).message}`;
    return { content: [{ type: 'text', text: message }], isError: true };
  }
}
