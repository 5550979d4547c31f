import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Store } from '../store/store.js';
import { createExpandServer } from './expand-tool.js';

/**
 * Serves `spillway_expand` over standard input and output until the client closes it.
 *
 * @example
 * await serveStdio(new FileStore());
 */
export async function serveStdio(store: Store, version?: string): Promise<void> {
  const server = createExpandServer(store, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
