import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SpillwayError } from '../errors.js';
import { recall } from '../store/recall.js';
import type { Store } from '../store/store.js';

/** The name every marker points the model to. */
export const EXPAND_TOOL = 'spillway_expand';

/** What the model reads about the tool: when to call it, how to page, and that unknown ids are final. */
export const EXPAND_DESCRIPTION = [
  'Returns the full original of a tool result that spillway shortened to save context.',
  'Call it when a tool result contains a spillway marker (for example "<<sw:ID>>", "spillway_expand id ID" or "recall with spillway_expand id \\"SESSION/CALL\\"") and the part that was omitted matters for the task; do not call it when the kept head and tail are enough.',
  'Pass the id exactly as the marker gives it (the ID inside <<sw:ID>>, or SESSION/CALL). Long outputs come in pages of at most 48 KiB; each page ends with "[bytes A-B of N; call spillway_expand with offset B for more]", so call again with that offset for the next page.',
  'If the answer says there is no stored tool result with that id, the output has expired or never existed: that answer is final, do not retry with the same id.',
].join(' ');

/**
 * An MCP server with one tool, `spillway_expand {id, offset?}`, reading `store`.
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
        offset: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Byte offset to continue from, from the previous page footer.'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, offset }) => {
      try {
        const page = await recall(id, { store, offset: offset ?? 0 });
        return { content: [{ type: 'text', text: page.text }] };
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
