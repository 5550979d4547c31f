import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { stash } from '../../store/stash.js';
import { answerMessage } from './server.js';

// The stdio server without the SDK: what it answers to each message an MCP client may send.
describe('spillway mcp, message by message', () => {
  const store = new MemoryStore();
  const ask = (message: unknown) => answerMessage(store, message, '1.2.3');

  it("speaks the client's protocol revision when it knows it, else its newest", async () => {
    const known = await ask({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26' },
    });
    expect(known?.result).toMatchObject({
      protocolVersion: '2025-03-26',
      serverInfo: { name: 'spillway', version: '1.2.3' },
    });
    const unknown = await ask({
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '1999-01-01' },
    });
    expect((unknown?.result as { protocolVersion?: string } | undefined)?.protocolVersion).toBe('2025-11-25');
  });

  it('answers ping and tools/list, ignores notifications, and names an unknown method or tool', async () => {
    expect(await ask({ jsonrpc: '2.0', id: 3, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
    const list = await ask({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    expect(
      (list?.result as { tools?: { name: string; _meta: object }[] } | undefined)?.tools?.[0],
    ).toMatchObject({
      name: 'spillway_expand',
      _meta: { 'anthropic/alwaysLoad': true },
    });
    expect(await ask({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect((await ask({ jsonrpc: '2.0', id: 5, method: 'resources/list' }))?.error).toMatchObject({
      code: -32601,
    });
    expect(
      (await ask({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'rm', arguments: {} } }))
        ?.error,
    ).toMatchObject({ code: -32602 });
  });

  it('recalls by grep, and answers bad arguments with an error result the model can read', async () => {
    const id = await stash(store, `${'ok\n'.repeat(300)}ERROR: disk full\n`);
    const hit = await ask({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'spillway_expand', arguments: { id, grep: 'ERROR' } },
    });
    expect(JSON.stringify(hit?.result)).toContain('301:ERROR: disk full');
    for (const [args, why] of [
      [{}, /"id" is required/],
      [{ id, context: 51 }, /"context" must be at most 50/],
      [{ id, grep: 5 }, /"grep" must be a string/],
      [{ id, sudo: true }, /"sudo" is not an argument/],
    ] as const) {
      const r = (
        await ask({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: { name: 'spillway_expand', arguments: args },
        })
      )?.result as { isError: boolean; content: { text: string }[] };
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toMatch(why);
    }
  });
});
