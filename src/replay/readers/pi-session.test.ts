import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../test-support/cli.js';
import { readTranscript } from './index.js';

const at = (s: number) => `2026-12-05T10:00:${String(s).padStart(2, '0')}.000Z`;
const usage = (input: number, cacheRead: number) => ({
  input,
  output: 20,
  cacheRead,
  cacheWrite: 0,
  totalTokens: input + cacheRead + 20,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const buildLog = Array.from({ length: 3000 }, (_, i) =>
  i === 1700
    ? 'src/app.ts(12,5): error TS2322: Type string is not assignable to type number.'
    : `compiled module ${i}`,
).join('\n');

/** A pi session as its SessionManager writes one (version 3): a header, then a tree of entries. */
function session(): string {
  let n = 0;
  let parent: string | null = null;
  const entries: object[] = [
    {
      type: 'session',
      version: 3,
      id: 'c0ffee00-1111-2222-3333-444455556666',
      timestamp: at(0),
      cwd: '/repo',
    },
  ];
  const add = (entry: object, from: string | null = parent) => {
    const id = (++n).toString(16).padStart(8, '0');
    entries.push({ ...entry, id, parentId: from, timestamp: at(n) });
    parent = id;
    return id;
  };
  const message = (m: object, from?: string | null) =>
    add({ type: 'message', message: { timestamp: Date.parse(at(n)), ...m } }, from);
  message({ role: 'user', content: 'the build fails; fix it' });
  add({ type: 'model_change', provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  const asked = message({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'run it' },
      { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'npm run build' } },
      { type: 'toolCall', id: 'call_2', name: 'read', arguments: { path: 'src/app.ts' } },
    ],
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    usage: usage(900, 0),
    stopReason: 'toolUse',
  });
  message({
    role: 'toolResult',
    toolCallId: 'call_1',
    toolName: 'bash',
    content: [{ type: 'text', text: buildLog }],
    isError: true,
  });
  message({
    role: 'toolResult',
    toolCallId: 'call_2',
    toolName: 'read',
    content: [
      { type: 'text', text: 'export const n: number = "1";' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ],
    isError: false,
  });
  const branchPoint = parent;
  // A branch the user left (/tree): its result was never sent with the conversation.
  message({
    role: 'assistant',
    content: [{ type: 'toolCall', id: 'call_x', name: 'bash', arguments: { command: 'rm -rf dist' } }],
    usage: usage(10, 0),
  });
  message({
    role: 'toolResult',
    toolCallId: 'call_x',
    toolName: 'bash',
    content: [{ type: 'text', text: 'abandoned' }],
    isError: false,
  });
  message(
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'A string where a number goes.' },
        {
          type: 'toolCall',
          id: 'call_3',
          name: 'edit',
          arguments: { path: 'src/app.ts', oldText: '"1"', newText: '1' },
        },
      ],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: usage(200, 12000),
      stopReason: 'toolUse',
    },
    branchPoint,
  );
  message({
    role: 'toolResult',
    toolCallId: 'call_3',
    toolName: 'edit',
    content: [{ type: 'text', text: 'edited' }],
    isError: false,
  });
  message({
    role: 'assistant',
    content: [{ type: 'text', text: 'Fixed.' }],
    usage: usage(50, 13000),
    stopReason: 'stop',
  });
  expect(asked).toBe('00000003');
  return `${entries.map((e) => JSON.stringify(e)).join('\n')}\n`;
}

describe('pi session reader', () => {
  it('reads the branch to the last entry: results per turn, their tools, errors, images, and each request usage', () => {
    const { format, conversations } = readTranscript(session(), 'pi.jsonl');
    expect(format).toBe('pi');
    const [c] = conversations;
    expect(c?.id).toBe('c0ffee00-1111-2222-3333-444455556666');
    expect(c?.model).toBe('claude-sonnet-4-5');
    expect(c?.turns.map((t) => t.map((r) => [r.id, r.tool, r.isError ?? false]))).toEqual([
      [
        ['call_1', 'bash', true],
        ['call_2', 'read', false],
      ],
      [['call_3', 'edit', false]],
    ]);
    expect(c?.turns[0]?.[0]?.content).toBe(buildLog);
    expect(c?.turns[0]?.[0]?.input).toEqual({ command: 'npm run build' });
    expect(c?.turns[0]?.[1]?.content).toEqual([
      { type: 'text', text: 'export const n: number = "1";' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    expect(c?.providerUsage).toEqual([
      { input: 200, cacheRead: 12000, cacheWrite: 0 },
      { input: 50, cacheRead: 13000, cacheWrite: 0 },
    ]);
    expect(c?.providerTokens).toEqual([12200, 13050]);
    expect(c?.otherText?.[0]).toContain('npm run build');
    expect(JSON.stringify(c)).not.toContain('abandoned');
  });

  it('is replayed by spillway replay: the error line of the build log reaches the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-pi-'));
    try {
      const file = join(dir, '2026-12-05T10-00-00-000Z_c0ffee00.jsonl');
      writeFileSync(file, session());
      const r = await cli(['replay', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const [replayed] = JSON.parse(r.stdout).files;
      expect(replayed).toMatchObject({
        format: 'pi',
        turns: 2,
        toolResults: 3,
        violations: 0,
        recallFailures: 0,
      });
      // The lines an agent needs (the build's error among them) all survive.
      expect(replayed.needles).toBeGreaterThan(0);
      expect(replayed.needlesKept).toBe(replayed.needles);
      expect(replayed.tokensAfter).toBeLessThan(replayed.tokensBefore / 4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the line that is not JSON', () => {
    const torn = session().replace('"role":"user"', '"role":"user"}{');
    expect(() => readTranscript(torn, 'pi.jsonl')).toThrow(/pi\.jsonl: line 2 is not JSON/);
  });
});
