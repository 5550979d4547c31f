import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { handleMcpRequest } from './http.js';

// The streamable HTTP transport's rules, as MCP's specification and the SDK's own server apply
// them; the SDK client itself talks to /mcp in proxy.test.ts and fleet.test.ts.
describe('MCP over streamable HTTP, without the SDK', () => {
  let server: Server;
  let url: string;
  const JSON_AND_STREAM = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  beforeAll(async () => {
    const store = new MemoryStore();
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      await handleMcpRequest(store, req, res, text ? JSON.parse(text) : undefined, '9.9.9');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: unknown, headers: Record<string, string> = JSON_AND_STREAM) =>
    fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });

  it('answers a request with its JSON answer, and a batch with an array in order', async () => {
    const one = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18' },
    });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('application/json');
    expect(await one.json()).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'spillway', version: '9.9.9' } },
    });
    const batch = await post([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
    ]);
    const answers = (await batch.json()) as { id: string }[];
    expect(answers.map((a) => a.id)).toEqual(['a', 'b']);
  });

  it('accepts notifications alone with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('refuses what the transport does not allow, saying why', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const cases: [Promise<Response>, number, RegExp][] = [
      [post(ping, { accept: 'application/json', 'content-type': 'application/json' }), 406, /Not Acceptable/],
      [post(ping, { accept: JSON_AND_STREAM.accept, 'content-type': 'text/plain' }), 415, /Content-Type/],
      [
        post(ping, { ...JSON_AND_STREAM, 'mcp-protocol-version': '1999-01-01' }),
        400,
        /1999-01-01.*2025-11-25/,
      ],
      [post({ id: 1, method: 'ping' }), 400, /Invalid JSON-RPC message/],
      [post(Array.from({ length: 101 }, (_, i) => ({ ...ping, id: i }))), 400, /Batch must not exceed 100/],
      [fetch(url, { headers: { accept: 'text/event-stream' } }), 405, /not allowed/],
      [fetch(url, { method: 'DELETE' }), 405, /not allowed/],
    ];
    for (const [response, status, message] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      const body = (await res.json()) as { jsonrpc: string; error: { message: string } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.message).toMatch(message);
    }
    expect((await fetch(url, { method: 'GET' })).headers.get('allow')).toBe('POST');
  });

  it('speaks the protocol revisions it names, header or not', async () => {
    for (const revision of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const res = await post(
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { ...JSON_AND_STREAM, 'mcp-protocol-version': revision },
      );
      expect(res.status).toBe(200);
    }
  });
});
