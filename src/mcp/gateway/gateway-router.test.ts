import { describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { markerIds } from '../../text/markers.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { McpGateway } from './gateway.js';

const o200k = getTokenizer('o200k');
type Json = Record<string, unknown>;

/** A gateway whose two sides are arrays of the messages it wrote. */
function wired(store = new MemoryStore()) {
  const toClient: Json[] = [];
  const toUpstream: string[] = [];
  const logs: Json[] = [];
  const gateway = new McpGateway({
    store,
    toClient: (l) => toClient.push(JSON.parse(l) as Json),
    toUpstream: (l) => toUpstream.push(l),
    log: (l) => logs.push(l),
  });
  /** A tools/call the client makes, and the result the upstream gives it. */
  const call = async (result: Json, id = 7) => {
    await gateway.fromClient(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'list_orders', arguments: {} },
      }),
    );
    await gateway.fromUpstream(JSON.stringify({ jsonrpc: '2.0', id, result }));
    return toClient.at(-1)?.result as Json;
  };
  return { gateway, toClient, toUpstream, logs, call };
}

const log = Array.from({ length: 6000 }, (_, i) =>
  i === 3000 ? 'ERROR: ledger out of balance' : `[${i}] settled order ${i}`,
).join('\n');

describe('the gateway router', () => {
  it('passes a result whole when its original cannot be stashed, with a log line: nothing is lost', async () => {
    const { call, logs } = wired(new MemoryStore({ maxFileBytes: 1000 }));
    const result = await call({ content: [{ type: 'text', text: log }] });
    expect((result.content as { text: string }[])[0]?.text).toBe(log);
    expect(logs).toContainEqual(expect.objectContaining({ event: 'stash_failed', tool: 'list_orders' }));
  });

  it('keeps structured content in its shape: long arrays sampled (first items and the last) to fit, each cut named beside it and the whole recallable byte for byte', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      id: i,
      status: i === 4999 ? 'failed' : 'settled',
      amount: i % 300,
    }));
    const store = new MemoryStore();
    const { gateway, toClient } = wired(store);
    await gateway.fromClient(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_orders","arguments":{}}}',
    );
    // The server's own bytes: spacing and 1.50 the way it wrote them.
    const structuredBytes = `{ "items": ${JSON.stringify(items)}, "fee": 1.50 }`;
    await gateway.fromUpstream(
      `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":${JSON.stringify(JSON.stringify({ items }))}}],"structuredContent":${structuredBytes}}}`,
    );
    const result = toClient.at(-1)?.result as Json;
    const structured = result.structuredContent as {
      items: { id: number; status: string; amount: number }[];
    };
    expect(o200k.count(JSON.stringify(structured))).toBeLessThanOrEqual(1800);
    expect(structured.items.length).toBeGreaterThan(10);
    expect(structured.items[0]).toEqual(items[0]);
    expect(structured.items.at(-1)).toEqual(items[4999]);
    for (const item of structured.items) expect(Object.keys(item)).toEqual(['id', 'status', 'amount']);
    const texts = (result.content as { text: string }[]).map((b) => b.text);
    // The text block is collapsed as JSON by structure, with its recall id.
    expect(texts[0]).toMatch(/^\[JSON compacted: \d+ array items left out/);
    // The cut is named in a note beside it, and the whole comes back as the server sent it.
    const kept = structured.items.length;
    expect(texts[1]).toContain(`/items ${kept} of 5000 items kept (the first ${kept - 1} and the last)`);
    const [id] = markerIds(texts[1] ?? '');
    expect((await recallAll(id ?? '', { store })).toString('utf8')).toBe(structuredBytes);
  });

  it('leaves structured content it has nothing to cut in as it is, with no note', async () => {
    const wide = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`key_${i}`, i]));
    const { call } = wired();
    const result = await call({ content: [{ type: 'text', text: 'ok' }], structuredContent: wide });
    expect(result).toEqual({ content: [{ type: 'text', text: 'ok' }], structuredContent: wide });
  });

  it('a thousand items with long strings: a handful of collapses and stash entries, not one per item, every cut named', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      name: `job ${i}`,
      log: `${Array.from({ length: 400 }, (_, j) => `job ${i} step ${j} ok`).join('\n')}\nERROR: job ${i} failed`,
    }));
    const store = new MemoryStore();
    const { call } = wired(store);
    const result = await call({
      content: [{ type: 'text', text: 'see structured content' }],
      structuredContent: { items },
    });
    const structured = result.structuredContent as { items: { name: string; log: string }[] };
    expect(o200k.count(JSON.stringify(structured))).toBeLessThanOrEqual(1800);
    expect(structured.items[0]?.name).toBe('job 0');
    expect(structured.items.at(-1)?.name).toBe('job 999');
    // The kept items' logs keep their error line (collapsed, not cut by ends).
    expect(structured.items[0]?.log).toContain('ERROR: job 0 failed');
    const note = (result.content as { text: string }[]).at(-1)?.text ?? '';
    expect(note).toMatch(
      /^\[structured content shortened to fit 1800 tokens: \/items \d+ of 1000 items kept/,
    );
    expect(note).toMatch(/\d+ long strings shortened/);
    expect((await store.list('pruned')).length).toBeLessThanOrEqual(1 + 16);
  });

  it('answers spillway_expand itself, and adds it to the last page of tools/list only', async () => {
    const { gateway, toClient, toUpstream } = wired();
    await gateway.fromClient('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    await gateway.fromUpstream(
      '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}',
    );
    const lastTools = () => (toClient.at(-1) as { result: { tools: { name: string }[] } }).result.tools;
    expect(lastTools()).toHaveLength(1);
    await gateway.fromClient('{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2"}}');
    await gateway.fromUpstream(
      '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object"}}]}}',
    );
    expect(lastTools().map((t) => t.name)).toEqual(['b', 'spillway_expand']);
    await gateway.fromClient(
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"spillway_expand","arguments":{"id":"nope"}}}',
    );
    expect(toUpstream.some((l) => l.includes('spillway_expand'))).toBe(false);
    // Answered when ready, not in the client's line of messages.
    await vi.waitFor(() => expect(toClient.at(-1)).toMatchObject({ id: 3, result: { isError: true } }));
    // Other messages, and ids the client did not use for a call, pass as their very bytes.
    await gateway.fromUpstream(
      '{"jsonrpc":"2.0", "method":"notifications/progress","params":{"progress":1}}',
    );
    expect(toClient.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progress: 1 },
    });
  });
});

describe('the gateway beside spillway’s own MCP server (--no-expand)', () => {
  it('adds no spillway_expand and answers none itself: the list and the call go to the server as they are', async () => {
    const toClient: string[] = [];
    const toUpstream: string[] = [];
    const gateway = new McpGateway({
      store: new MemoryStore(),
      expandTool: false,
      toClient: (l) => toClient.push(l),
      toUpstream: (l) => toUpstream.push(l),
    });
    const list = '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}';
    await gateway.fromClient('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    await gateway.fromUpstream(list);
    expect(toClient).toEqual([list]);
    const call =
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"spillway_expand","arguments":{}}}';
    await gateway.fromClient(call);
    expect(toUpstream.at(-1)).toBe(call);
  });
});
