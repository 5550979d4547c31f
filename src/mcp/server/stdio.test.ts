import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../store/backends/file-store.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { stash } from '../../store/stash.js';
import { MAX_MESSAGE_BYTES } from '../line-reader.js';
import { serveStdio } from './stdio.js';

const CLI = resolve(import.meta.dirname, '../../cli.ts');

describe('spillway mcp over stdio (a real process, the official MCP client)', () => {
  it('answers initialize and tools/list without loading a tokenizer, then recalls from the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-stdio-'));
    const original = `${Array.from({ length: 400 }, (_, i) => `line ${i} ok`).join('\n')}\nERROR: disk full\n`;
    const id = await stash(new FileStore({ base: dir }), original);
    // NODE_DEBUG=module makes Node's CommonJS loader name every module it loads on stderr; the
    // tokenizer tables are loaded that way, on the first count.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI, 'mcp', '--dir', dir],
      env: { PATH: process.env.PATH ?? '', NODE_DEBUG: 'module' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['spillway_expand']);
      expect(stderr).toContain('MODULE'); // the loader log is on, so its silence below means something
      expect(stderr).not.toContain('gpt-tokenizer');

      const all = await client.callTool({ name: 'spillway_expand', arguments: { id, grep: 'ERROR' } });
      const text = (all.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(text).toContain('401:ERROR: disk full');
      expect(stderr).toContain('gpt-tokenizer'); // once something counts, the log does name it
    } finally {
      await client.close();
    }
  });

  it('answers a message over the line limit with an error naming its id, and goes on', async () => {
    const huge = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"pad":"${'x'.repeat(MAX_MESSAGE_BYTES)}"}}\n`;
    async function* input() {
      yield huge;
      yield '{"jsonrpc":"2.0","id":8,"method":"ping"}\n';
    }
    const written: string[] = [];
    await serveStdio(new MemoryStore(), '1.0.0', {
      input: input(),
      output: { write: (s) => written.push(s) },
    });
    const answers = written.map((l) => JSON.parse(l) as { id: number; error?: { message: string } });
    expect(answers[0]).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(answers[0]?.error?.message).toContain(String(MAX_MESSAGE_BYTES));
    expect(answers[1]).toMatchObject({ id: 8, result: {} });
  });
});
