import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../store/backends/file-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { fixtureBuildLog } from '../../test-support/mcp-fixture-server.js';
import { markerIds } from '../../text/markers.js';
import { getTokenizer } from '../../text/tokenizers/index.js';

const o200k = getTokenizer('o200k');
const FIXTURE = resolve(import.meta.dirname, '../../test-support/mcp-fixture-server.ts');
const CLI = resolve(import.meta.dirname, '../../cli.ts');
const dir = join(mkdtempSync(join(tmpdir(), 'sw-gateway-')), 'tr');
const fixture = ['--import', 'tsx', FIXTURE];
/** `spillway gateway ARGS...` run from the sources. */
const gateway = (...args: string[]) => ['--import', 'tsx', CLI, 'gateway', '--dir', dir, ...args];

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
  try {
    await client.connect(transport);
  } catch (err) {
    // A failed handshake still leaves the gateway's process: it ends with its input.
    await transport.close();
    throw err;
  }
  return client;
}
const textOf = (r: unknown) =>
  (r as { content: { type: string; text?: string }[] }).content.find((b) => b.type === 'text')?.text ?? '';

let direct: Client;
let gated: Client;
beforeAll(async () => {
  direct = await connect(fixture);
  gated = await connect(gateway('--tool', 'echo=0', '--', process.execPath, ...fixture));
});
afterAll(async () => {
  await direct?.close();
  await gated?.close();
});

describe('spillway gateway', () => {
  it("lists the server's tools, resources and prompts as they are, with spillway_expand added", async () => {
    const tools = await gated.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual([
      ...(await direct.listTools()).tools.map((t) => t.name),
      'spillway_expand',
    ]);
    expect(tools.tools.slice(0, -1)).toEqual((await direct.listTools()).tools);
    expect(await gated.listResources()).toEqual(await direct.listResources());
    expect(await gated.readResource({ uri: 'fixture://readme' })).toEqual(
      await direct.readResource({ uri: 'fixture://readme' }),
    );
    expect(await gated.listPrompts()).toEqual(await direct.listPrompts());
    expect(await gated.getPrompt({ name: 'review', arguments: { diff: '+x' } })).toEqual(
      await direct.getPrompt({ name: 'review', arguments: { diff: '+x' } }),
    );
  });

  it('collapses a long result to its budget with the error line, and spillway_expand recalls the exact original', async () => {
    const log = fixtureBuildLog();
    const result = await gated.callTool({ name: 'build_log', arguments: {} });
    const shown = textOf(result);
    expect(o200k.count(shown)).toBeLessThanOrEqual(1800);
    expect(shown).toContain("src/pay.c:88:3: error: 'amount' undeclared");
    const id = markerIds(shown)[0] as string;
    const store = new FileStore({ base: dir, pruneOnFirstSpill: false });
    expect((await recallAll(id, { store })).toString('utf8')).toBe(log);
    const grep = await gated.callTool({
      name: 'spillway_expand',
      arguments: { id, grep: "'amount' undeclared" },
    });
    expect(textOf(grep)).toContain("3100:src/pay.c:88:3: error: 'amount' undeclared");
    // The same call gives the same bytes.
    expect(textOf(await gated.callTool({ name: 'build_log', arguments: {} }))).toBe(shown);
  });

  it('passes errors, images, small results and pass-through tools as they are; honours a tool cap', async () => {
    for (const [name, args] of [
      ['broken', {}],
      ['echo', { message: 'x'.repeat(200_000) }],
      ['echo', { message: 'short' }],
    ] as const)
      expect(await gated.callTool({ name, arguments: args })).toEqual(
        await direct.callTool({ name, arguments: args }),
      );
    const picture = await gated.callTool({ name: 'picture', arguments: {} });
    const blocks = picture.content as { type: string; data?: string; text?: string }[];
    expect(blocks[0]).toEqual(
      (await direct.callTool({ name: 'picture', arguments: {} })).content?.[0 as never],
    );
    expect(o200k.count(blocks[1]?.text ?? '')).toBeLessThanOrEqual(1800);
    const capped = textOf(await gated.callTool({ name: 'capped', arguments: {} }));
    expect(capped.length).toBeLessThanOrEqual(4000);
    expect(capped).toContain("error: 'amount' undeclared");
  });
});

describe('spillway gateway --url (an upstream over Streamable HTTP)', () => {
  it('passes the headers given, lists and answers as the server does, and collapses its long results', async () => {
    const { randomUUID } = await import('node:crypto');
    const { createServer } = await import('node:http');
    const { StreamableHTTPServerTransport } = await import(
      '@modelcontextprotocol/sdk/server/streamableHttp.js'
    );
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const { fixtureServer } = await import('../../test-support/mcp-fixture-server.js');
    const { listenOnLoopback } = await import('../../test-support/loopback.js');
    const sessions = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
    const http = createServer(async (req, res) => {
      if (req.headers.authorization !== 'Bearer s3cret') return void res.writeHead(401).end();
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        const made = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, made),
        });
        await fixtureServer().connect(made);
        transport = made;
      }
      await transport.handleRequest(req, res);
    });
    const server = await listenOnLoopback(http);
    const url = `${server.url}/mcp`;
    const direct = new Client({ name: 'test', version: '1' });
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: 'Bearer s3cret' } },
      }),
    );
    const over = await connect(gateway('--url', url, '--header', 'Authorization: Bearer s3cret'));
    try {
      expect((await over.listTools()).tools.slice(0, -1)).toEqual((await direct.listTools()).tools);
      expect(await over.getPrompt({ name: 'review', arguments: { diff: '+x' } })).toEqual(
        await direct.getPrompt({ name: 'review', arguments: { diff: '+x' } }),
      );
      expect(await over.callTool({ name: 'echo', arguments: { message: 'short' } })).toEqual(
        await direct.callTool({ name: 'echo', arguments: { message: 'short' } }),
      );
      const shown = textOf(await over.callTool({ name: 'build_log', arguments: {} }));
      expect(o200k.count(shown)).toBeLessThanOrEqual(1800);
      expect(shown).toContain("src/pay.c:88:3: error: 'amount' undeclared");
      const id = markerIds(shown)[0] as string;
      expect(
        textOf(await over.callTool({ name: 'spillway_expand', arguments: { id, lines: '3100' } })),
      ).toContain("3100:src/pay.c:88:3: error: 'amount' undeclared");
      // Without the header the server refuses, and the client gets an error, not a hang.
      const refused = await connect(gateway('--url', url)).catch((err: Error) => err);
      expect(refused).toBeInstanceOf(Error);
      expect(String(refused)).toMatch(/HTTP 401/);
    } finally {
      await over.close();
      await direct.close();
      await server.close();
    }
  });
});

describe('spillway gateway --config', () => {
  it('takes budgets from a file (flags win), and refuses a bad one naming the key', async () => {
    const { writeFileSync } = await import('node:fs');
    const { cli } = await import('../../test-support/cli.js');
    const configDir = mkdtempSync(join(tmpdir(), 'sw-gateway-config-'));
    const good = join(configDir, 'gateway.json');
    writeFileSync(good, JSON.stringify({ maxTokens: 900, tools: { echo: 0 } }));
    const configured = await connect(gateway('--config', good, '--', process.execPath, ...fixture));
    try {
      const long = { message: 'y'.repeat(100_000) };
      expect(await configured.callTool({ name: 'echo', arguments: long })).toEqual(
        await direct.callTool({ name: 'echo', arguments: long }),
      );
      expect(
        o200k.count(textOf(await configured.callTool({ name: 'build_log', arguments: {} }))),
      ).toBeLessThanOrEqual(900);
    } finally {
      await configured.close();
    }
    const bad = join(configDir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tools: { echo: -1 } }));
    const refused = await cli(['gateway', '--config', bad, '--', 'true']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${bad}: "tools"`);
    const usage = await cli(['gateway']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('gateway needs one MCP server');
  });
});
