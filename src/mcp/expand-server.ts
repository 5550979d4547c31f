import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Store } from '../store/store.js';
import { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION } from './expand-tool.js';

/**
 * An MCP server (the official SDK's) with one tool, `spillway_expand`, reading `store`: what
 * `/mcp` serves over streamable HTTP. The tool's definition and its call are the ones
 * `spillway mcp` serves on stdio.
 *
 * @example
 * const server = createExpandServer(new FileStore());
 * await server.connect(transport);
 */
export function createExpandServer(store: Store, version = '0.0.0'): Server {
  const server = new Server(
    { name: 'spillway', version },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [EXPAND_TOOL_DEFINITION] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== EXPAND_TOOL)
      return {
        content: [
          { type: 'text', text: `Unknown tool: ${request.params.name}; this server has ${EXPAND_TOOL}` },
        ],
        isError: true,
      };
    return callExpandTool(store, request.params.arguments ?? {});
  });
  return server;
}
