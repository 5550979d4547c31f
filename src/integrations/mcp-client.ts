/**
 * spillway around an MCP client session (`@modelcontextprotocol/sdk`'s Client): a server's long
 * tool results capped in process, as `spillway gateway` caps them, without a second process.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SOURCE_MAX_TOKENS } from '../engine/index.js';
import { MemoryStore } from '../store/backends/index.js';
import type { Store } from '../store/index.js';
import { callExpandTool, EXPAND_TOOL, EXPAND_TOOL_DEFINITION, shortenToolResult } from '../tools/index.js';

/** What the wrapper takes. */
export interface McpClientCapOptions {
  /** Tokens a result's text block (and its structured content) may take (default 1,800). */
  tokens?: number;
  /** Where originals are stashed for recall (default: one MemoryStore per client). */
  store?: Store;
  /** Called with what was collapsed or could not be stashed. */
  log?: (event: Record<string, unknown>) => void;
}

/**
 * The client with its `callTool` results capped: text blocks over `tokens` collapsed (their
 * errors kept, the whole stashed), structured content cut in its shape with a note; and with
 * `spillway_expand` listed by `listTools` and answered in process from the store, unless the
 * server has a tool of that name. Every other method is the client's own.
 *
 * @example
 * const client = capMcpClient(new Client({ name: 'agent', version: '1' }), { tokens: 1800 });
 * await client.connect(transport);
 * const result = await client.callTool({ name: 'build', arguments: {} }); // within 1,800 tokens a block
 */
export function capMcpClient<T extends Client>(
  client: T,
  options: McpClientCapOptions = {},
): T & { store: Store } {
  const store = options.store ?? new MemoryStore();
  const budget = options.tokens ?? SOURCE_MAX_TOKENS;
  let serverHasExpand = false;
  const callTool: Client['callTool'] = async (params, resultSchema, requestOptions) => {
    if (params.name === EXPAND_TOOL && !serverHasExpand)
      return (await callExpandTool(store, params.arguments ?? {})) as Awaited<ReturnType<Client['callTool']>>;
    const result = await client.callTool(params, resultSchema, requestOptions);
    const shortened = await shortenToolResult(result, {
      tool: params.name,
      args: params.arguments ?? {},
      budget,
      store,
      ...(options.log ? { log: options.log } : {}),
    });
    return (shortened ?? result) as typeof result;
  };
  const listTools: Client['listTools'] = async (params, requestOptions) => {
    const result = await client.listTools(params, requestOptions);
    if (result.tools.some((t) => t.name === EXPAND_TOOL)) serverHasExpand = true;
    if (serverHasExpand || result.nextCursor !== undefined) return result;
    return { ...result, tools: [...result.tools, EXPAND_TOOL_DEFINITION] } as typeof result;
  };
  return new Proxy(client, {
    get(target, key) {
      if (key === 'callTool') return callTool;
      if (key === 'listTools') return listTools;
      if (key === 'store') return store;
      const value = Reflect.get(target, key);
      // The client's own methods run on the client itself (its private fields are there).
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as T & { store: Store };
}
