/**
 * An MCP server for the gateway's tests (run with `node --import tsx`): tools whose results are
 * long, short, errors, mixed with an image, or capped by `_meta`; a resource and a prompt.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { buildLog } from './build-log.js';

/** A 650 KB build log with one error at line 3,100: what the fixture's build_log tool returns. */
export function fixtureBuildLog(): string {
  return buildLog().text;
}

/**
 * The fixture server, not yet connected (stdio when this file runs; HTTP in a test).
 *
 * @example
 * await fixtureServer().connect(new StdioServerTransport());
 */
export function fixtureServer(): McpServer {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' });
  const text = (t: string) => ({ type: 'text' as const, text: t });
  server.registerTool('build_log', { description: 'The last build log' }, async () => ({
    content: [text(fixtureBuildLog())],
  }));
  server.registerTool(
    'echo',
    { description: 'Echoes', inputSchema: { message: z.string() } },
    async ({ message }) => ({
      content: [text(message)],
    }),
  );
  server.registerTool('broken', { description: 'Fails at length' }, async () => ({
    content: [text(fixtureBuildLog())],
    isError: true,
  }));
  server.registerTool('picture', { description: 'An image beside a long text' }, async () => ({
    content: [
      {
        type: 'image' as const,
        data: Buffer.from('not really a png').toString('base64'),
        mimeType: 'image/png',
      },
      text(fixtureBuildLog()),
    ],
  }));
  server.registerTool(
    'capped',
    { description: 'Declares its own cap', _meta: { 'anthropic/maxResultSizeChars': 4000 } },
    async () => ({ content: [text(fixtureBuildLog())] }),
  );
  server.registerResource('readme', 'fixture://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'the fixture readme' }],
  }));
  server.registerPrompt(
    'review',
    { description: 'Review a diff', argsSchema: { diff: z.string() } },
    ({ diff }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Review:\n${diff}` } }],
    }),
  );
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`)
  await fixtureServer().connect(new StdioServerTransport());
