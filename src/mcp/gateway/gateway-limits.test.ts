import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boundedLines, idInHead } from '../line-reader.js';

// The gateway's limits, against a raw JSON-RPC server that misbehaves on purpose: an answer over
// the message limit, a client message over it, a server that dies halfway through an answer.

const CLI = resolve(import.meta.dirname, '../../cli.ts');
const root = mkdtempSync(join(tmpdir(), 'sw-gateway-limits-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Answers each request by its method: `huge` with 300 KB, `die` with half a line and an exit,
// `shape` with structured content holding a `__proto__` key, anything else with "ok".
const SERVER = join(root, 'server.cjs');
writeFileSync(
  SERVER,
  `const rl = require('readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const name = m.params && m.params.name;
  const answer = (result) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
  if (m.method === 'tools/call' && name === 'huge') return answer({ content: [{ type: 'text', text: 'x'.repeat(300000) }] });
  if (m.method === 'tools/call' && name === 'die') { process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"te'); return setTimeout(() => process.exit(3), 50); }
  if (m.method === 'tools/call' && name === 'shape') { const log = JSON.stringify(Array.from({ length: 3000 }, (_, i) => 'step ' + i + ' compiled module_' + i).join('\\n')); return process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"__proto__":{"polluted":true},"log":' + log + '}}}\\n'); }
  answer({ content: [{ type: 'text', text: 'ok' }] });
});
`,
);

/** The gateway in front of the server, spoken to line by line. */
function start(): {
  child: ChildProcess;
  send: (m: object | string) => void;
  next: () => Promise<Record<string, unknown>>;
} {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI,
      'gateway',
      '--dir',
      join(root, 'store'),
      '--max-message-bytes',
      '100000',
      '--',
      process.execPath,
      SERVER,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines = boundedLines(child.stdout as AsyncIterable<Buffer>, 1 << 26);
  return {
    child,
    send: (m) => child.stdin?.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`),
    next: async () => {
      const { value } = await lines.next();
      return JSON.parse((value as { line: string }).line) as Record<string, unknown>;
    },
  };
}
const call = (id: number | string, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('spillway gateway limits', () => {
  it('answers an over-limit answer with an error naming the limit, and goes on', async () => {
    const g = start();
    try {
      g.send(call(1, 'huge'));
      const error = await g.next();
      expect(error.id).toBe(1);
      expect((error.error as { message: string }).message).toMatch(
        /answer is \d+ bytes, over spillway gateway's limit of 100000 bytes/,
      );
      g.send(call('two', 'small'));
      expect((await g.next()).id).toBe('two');
    } finally {
      g.child.kill();
    }
  }, 30_000);

  it('answers an over-limit client message with an error for its id, and goes on', async () => {
    const g = start();
    try {
      g.send({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { pad: 'y'.repeat(200_000) } },
      });
      const error = await g.next();
      expect(error.id).toBe(7);
      expect((error.error as { message: string }).message).toMatch(
        /your message is \d+ bytes, over .* 100000 bytes/,
      );
      g.send(call(8, 'small'));
      expect((await g.next()).id).toBe(8);
    } finally {
      g.child.kill();
    }
  }, 30_000);

  it('keeps a __proto__ key of structured content it collapses as a key', async () => {
    const g = start();
    try {
      g.send(call(1, 'shape'));
      const answer = await g.next();
      const structured = (answer.result as { structuredContent: { log: string } }).structuredContent;
      expect(structured.log.length, 'collapsed: the long string went through the gateway').toBeLessThan(
        60_000,
      );
      expect(Object.hasOwn(structured, '__proto__')).toBe(true);
    } finally {
      g.child.kill();
    }
  }, 30_000);

  it('gives every unanswered request an error when the server dies halfway through an answer', async () => {
    const g = start();
    try {
      g.send(call(5, 'die'));
      const error = await g.next();
      expect(error.id).toBe(5);
      expect((error.error as { message: string }).message).toMatch(
        /the MCP server exited with code 3 before it answered/,
      );
    } finally {
      g.child.kill();
    }
  }, 30_000);
});

describe('boundedLines', () => {
  it('yields lines as they come, drops one over the limit with its head, and keeps going', async () => {
    async function* chunks() {
      yield Buffer.from('{"id":1}\r\n{"id":2,"x":"');
      yield Buffer.from('z'.repeat(5000));
      yield Buffer.from('"}\n{"id":3}');
    }
    const out = [];
    for await (const item of boundedLines(chunks(), 1000)) out.push(item);
    expect(out[0]).toEqual({ line: '{"id":1}' });
    expect(out[1]).toMatchObject({ oversize: 5015 });
    expect(idInHead((out[1] as { head: string }).head)).toBe(2);
    expect(out[2]).toEqual({ line: '{"id":3}', partial: true });
  });

  it('finds the top-level id only', () => {
    expect(idInHead('{"jsonrpc":"2.0","result":{"id":9,"content":[')).toBeUndefined();
    expect(idInHead('{"result":{"id":9},"id":"a\\"b","jsonrpc"')).toBe('a"b');
  });
});

describe('structured content', () => {
  it('keeps a __proto__ key as a key when it collapses strings or samples arrays', async () => {
    const { shortenStructured } = await import('../../tools/structured-content.js');
    const value = JSON.parse(
      `{"__proto__":{"polluted":true},"log":${JSON.stringify('a long text '.repeat(400))},"rows":${JSON.stringify(Array.from({ length: 500 }, (_, i) => i))}}`,
    );
    const { value: sampled } = (await shortenStructured(value, {
      budget: 200,
      wholeId: 'Ab3',
      collapse: async () => 'short',
    })) as { value: object };
    expect(Object.getPrototypeOf(sampled)).toBe(Object.prototype);
    expect(Object.hasOwn(sampled, '__proto__')).toBe(true);
  });
});
