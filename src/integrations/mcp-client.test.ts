import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildLog } from '../test-support/build-log.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { capMcpClient } from './mcp-client.js';

const o200k = getTokenizer('o200k');
const { text: log, error } = buildLog();
const orders = Array.from({ length: 1000 }, (_, i) => ({
  id: i,
  status: i === 999 ? 'failed: card declined' : 'shipped',
}));

/** A real SDK server with a build tool (650 KB of text), an orders tool (structured) and a small one. */
async function connected() {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  server.registerTool('build', { description: 'builds' }, async () => ({
    content: [{ type: 'text', text: log }],
  }));
  server.registerTool(
    'echo',
    { description: 'echoes', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  server.registerTool(
    'orders',
    {
      description: 'lists orders',
      outputSchema: { orders: z.array(z.object({ id: z.number(), status: z.string() })) },
    },
    async () => ({
      content: [{ type: 'text', text: 'see structured content' }],
      structuredContent: { orders },
    }),
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = capMcpClient(new Client({ name: 'agent', version: '1.0.0' }), { tokens: 1800 });
  await client.connect(b);
  return { client, server };
}

let open: { client: Client; server: McpServer } | undefined;
afterEach(async () => {
  await open?.client.close();
  await open?.server.close();
  open = undefined;
});

describe('capMcpClient (the real MCP SDK client and server, in process)', () => {
  it('collapses a 650 KB result to the budget with its error, and recalls the error by spillway_expand', async () => {
    open = await connected();
    const { client } = open;
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(['build', 'echo', 'orders', 'spillway_expand']);
    const result = await client.callTool({ name: 'build', arguments: {} });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(o200k.count(text)).toBeLessThanOrEqual(1800);
    expect(text).toContain(error);
    const id = /<<sw:([\w-]+)>>/.exec(text)?.[1];
    expect(id).toBeDefined();
    const recalled = await client.callTool({
      name: 'spillway_expand',
      arguments: { id, grep: 'undeclared' },
    });
    expect((recalled.content as { text: string }[])[0]?.text).toContain(error);
  });

  it('gives a small result as the server sent it, and cuts structured content in its shape with a note', async () => {
    open = await connected();
    const { client } = open;
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toEqual({
      content: [{ type: 'text', text: 'hello' }],
    });
    const result = await client.callTool({ name: 'orders', arguments: {} });
    const kept = (result.structuredContent as { orders: { id: number; status: string }[] }).orders;
    expect(kept.length).toBeLessThan(1000);
    expect(kept.at(-1)).toEqual({ id: 999, status: 'failed: card declined' });
    const note = (result.content as { text: string }[]).at(-1)?.text ?? '';
    expect(note).toMatch(/\/orders \d+ of 1000 items kept/);
    const id = /<<sw:([\w-]+)>>/.exec(note)?.[1];
    const whole = await client.callTool({
      name: 'spillway_expand',
      arguments: { id, grep: 'card declined' },
    });
    expect((whole.content as { text: string }[])[0]?.text).toContain('card declined');
  });
});
