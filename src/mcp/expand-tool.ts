import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SpillwayError } from '../errors.js';
import { expand } from '../store/expand.js';
import type { Store } from '../store/store.js';

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

/**
 * An MCP server with one tool, `spillway_expand {id, grep?, context?, ignore_case?, lines?,
 * max_tokens?, offset?}`, reading `store`.
 *
 * @example
 * const server = createExpandServer(new FileStore());
 * await server.connect(new StdioServerTransport());
 */
export function createExpandServer(store: Store, version = '0.0.0'): McpServer {
  const server = new McpServer({ name: 'spillway', version });
  server.registerTool(
    EXPAND_TOOL,
    {
      title: 'Recall a shortened tool result',
      description: EXPAND_DESCRIPTION,
      inputSchema: {
        id: z
          .string()
          .min(1)
          .max(300)
          .describe('The id the marker names: the ID in <<sw:ID>>, or SESSION/CALL.'),
        grep: z
          .string()
          .min(1)
          .max(1000)
          .optional()
          .describe('A regular expression: returns the matching lines with their numbers and context.'),
        context: z
          .number()
          .int()
          .min(0)
          .max(50)
          .optional()
          .describe('Lines of context around each match (default 2).'),
        ignore_case: z.boolean().optional().describe('Match grep without regard to case.'),
        lines: z
          .string()
          .max(40)
          .optional()
          .describe('A range of lines: "120-180", "500-" (to the end) or "42".'),
        max_tokens: z
          .number()
          .int()
          .min(100)
          .max(32000)
          .optional()
          .describe('The most tokens to return (default 4000).'),
        offset: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Byte offset of the next page, from the previous footer.'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      // Claude Code 2.1.3xx defers MCP tools behind ToolSearch; a marker names this tool, so it
      // asks to be always loaded, and gives ToolSearch the words a model would search with.
      _meta: { 'anthropic/alwaysLoad': true, 'anthropic/searchHint': EXPAND_SEARCH_HINT },
    },
    async ({ id, grep, context, ignore_case, lines, max_tokens, offset }) => {
      try {
        const text = await expand(store, {
          id,
          grep,
          context,
          ignoreCase: ignore_case,
          lines,
          maxTokens: max_tokens,
          offset,
        });
        return { content: [{ type: 'text', text }] };
      } catch (err) {
        const message = SpillwayError.isInstance(err)
          ? err.message
          : `could not read the stored output: ${(err as Error).message}`;
        return { content: [{ type: 'text', text: message }], isError: true };
      }
    },
  );
  return server;
}
