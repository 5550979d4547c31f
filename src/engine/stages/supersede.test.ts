import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { callKeyOf } from '../../text/index.js';
import { markerIds, SUPERSEDED_PREFIX } from '../../text/markers.js';
import type { ToolResult } from '../../text/tool-result.js';
import { resolveEngineConfig } from '../config.js';
import { ConversationEngine } from '../conversation.js';

const source = (name: string) =>
  Array.from({ length: 900 }, (_, i) => `export const ${name}${i} = compute(${i}, 'value ${i}');`).join('\n');
const read = (id: string, path: string, position: number): ToolResult => ({
  id,
  tool: 'Read',
  content: source(path.replace(/^\.\//, '').replace(/\W/g, '_')),
  position,
  input: { file_path: path },
});
const bash = (id: string, command: string, position: number, content = 'ok'): ToolResult => ({
  id,
  tool: 'Bash',
  content,
  position,
  input: { command },
});

describe('call keys', () => {
  it('tells reads, edits and commands apart across clients', () => {
    const key = (tool: string, input: unknown) => callKeyOf({ tool, input });
    expect(key('Read', { file_path: 'src/a.ts', offset: 10 })).toEqual({
      kind: 'read',
      path: 'src/a.ts',
      part: 'offset=10',
    });
    expect(key('read_file', { absolute_path: '/repo/a.ts' })).toMatchObject({
      kind: 'read',
      path: '/repo/a.ts',
    });
    expect(key('str_replace_based_edit_tool', { command: 'view', path: 'a.py' })).toMatchObject({
      kind: 'read',
    });
    expect(key('str_replace_based_edit_tool', { command: 'str_replace', path: 'a.py' })).toEqual({
      kind: 'edit',
      paths: ['a.py'],
    });
    expect(key('Edit', { file_path: 'src/a.ts' })).toEqual({ kind: 'edit', paths: ['src/a.ts'] });
    expect(
      key('apply_patch', '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch'),
    ).toEqual({
      kind: 'edit',
      paths: ['src/a.ts'],
    });
    expect(key('shell', { command: ['bash', '-lc', "sed -n '1,200p' src/a.ts"] })).toEqual({
      kind: 'read',
      path: 'src/a.ts',
      part: '1,200p',
    });
    expect(key('Bash', { command: 'cat README.md' })).toMatchObject({ kind: 'read', path: 'README.md' });
    expect(key('Bash', { command: 'cat a b | wc -l' })).toEqual({
      kind: 'command',
      command: 'cat a b | wc -l',
    });
    expect(key('exec_command', { cmd: 'npm test' })).toEqual({ kind: 'command', command: 'npm test' });
    expect(key('WebFetch', { url: 'https://x' })).toBeUndefined();
    expect(key('MyViewer', { path: 'a.txt' })).toBeUndefined();
    expect(callKeyOf({ tool: 'MyViewer', input: { path: 'a.txt' } }, ['MyViewer'])).toMatchObject({
      kind: 'read',
    });
  });
});

describe('reads are sources, not logs (balanced)', () => {
  const engine = () =>
    new ConversationEngine({
      config: resolveEngineConfig({ preset: 'balanced' }),
      store: new MemoryStore(),
      session: 's',
    });

  it('leaves a read whole at arrival, and masks it when the same file is read again', async () => {
    const conversation = engine();
    const first = await conversation.turn({ results: [read('r1', 'src/a.ts', 1)], messageCount: 2 });
    expect(first.results[0]?.content).toBe(source('src_a_ts'));
    expect(first.outcomes[0]?.trail).toContainEqual({ stage: 'collapse', outcome: 'source_read' });
    // Read again in the same request: the earlier one is stale at once (it is not cached yet).
    const store = new MemoryStore();
    const both = new ConversationEngine({ config: resolveEngineConfig(), store, session: 't' });
    const turn = await both.turn({
      results: [read('r1', 'src/a.ts', 1), read('r2', './src/a.ts', 3)],
      messageCount: 4,
    });
    const masked = turn.results[0]?.content as string;
    expect(masked.startsWith(SUPERSEDED_PREFIX)).toBe(true);
    expect(masked).toContain('src/a.ts read again (call r2)');
    expect((await recallAll(markerIds(masked)[0] as string, { store })).toString()).toBe(source('src_a_ts'));
    expect(turn.results[1]?.content).toBe(source('src_a_ts'));
  });

  it('masks stale results in the cached prefix only in batches, then replays them frozen', async () => {
    const conversation = engine();
    const results: ToolResult[] = [];
    const sent: string[][] = [];
    // Five files read, then each edited in a later turn: the reads go stale one by one.
    for (let i = 0; i < 5; i++) results.push(read(`r${i}`, `src/f${i}.ts`, i));
    let turn = await conversation.turn({ results, messageCount: 5 });
    for (let i = 0; i < 5; i++) {
      results.push({
        id: `e${i}`,
        tool: 'Edit',
        content: 'ok',
        position: 5 + i,
        input: { file_path: `src/f${i}.ts` },
      });
      turn = await conversation.turn({ results, messageCount: 6 + i });
      sent.push(turn.results.map((r) => r.content as string));
    }
    const stale = (contents: string[]) => contents.filter((c) => c.startsWith(SUPERSEDED_PREFIX)).length;
    // Four stale reads wait untouched (the cache holds); the fifth fills the batch and all five go.
    expect(sent.slice(0, 4).map(stale)).toEqual([0, 0, 0, 0]);
    expect(stale(sent[4] as string[])).toBe(5);
    const again = await conversation.turn({ results, messageCount: 11 });
    expect(again.results.map((r) => r.content)).toEqual(sent[4]);
    expect(again.frozenReplayed).toBe(results.length);
  });

  it("masks a command's earlier output when the same command runs again", async () => {
    const conversation = engine();
    const turn = await conversation.turn({
      results: [
        bash('b1', 'npm test', 1, `${'  ✓ case ok\n'.repeat(40)}FAIL src/pay.test.ts\n1 failed`),
        bash('b2', 'git status', 2),
        bash('b3', 'npm test', 3, 'PASS src/pay.test.ts\n1 passed'),
      ],
      messageCount: 4,
    });
    expect(String(turn.results[0]?.content).startsWith(SUPERSEDED_PREFIX)).toBe(true);
    expect(turn.results[0]?.content).toContain('the same command run again (call b3)');
    expect(turn.results[1]?.content).toBe('ok');
    expect(turn.results[2]?.content).toBe('PASS src/pay.test.ts\n1 passed');
  });
});
