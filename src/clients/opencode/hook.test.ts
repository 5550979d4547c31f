import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { recallAll } from '../../store/recall/recall.js';
import { cutNoteIds } from '../../text/markers.js';
import { opencodeHook } from './hook.js';

const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const log = `${Array.from({ length: 5000 }, (_, i) => (i === 2500 ? 'error: linker failed' : `compiling unit ${i}`)).join('\n')}\n`;

/** opencode's text for an output it cut: its header, then the last lines it keeps. */
const shownOf = (path: string, tail: string) =>
  `...output truncated...\n\nFull output saved to: ${path}\n\n${tail}`;

function machine() {
  const home = mkdtempSync(join(tmpdir(), 'spillway-opencode-'));
  homes.push(home);
  const dir = join(home, '.local/share/opencode/tool-output');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'tool_1');
  writeFileSync(file, log);
  const store = new MemoryStore();
  const ctx = { env: { HOME: home }, spillway: { command: 'node', args: [] }, store: async () => store };
  // opencode keeps whole lines from the end, the empty one after the last newline among them.
  const tail = log.split('\n').slice(-2000).join('\n');
  return { home, file, store, ctx, tail };
}

describe('opencode hook', () => {
  it('adds the line that matters from the part opencode left out, and the recall id of the whole', async () => {
    const { file, store, ctx, tail } = machine();
    const answer = (await opencodeHook(
      { tool: 'bash', output: shownOf(file, tail), outputPath: file, args: { command: 'make' } },
      ctx,
    )) as { additionalContext: string };
    expect(tail).not.toContain('error: linker failed');
    expect(answer.additionalContext).toContain('error: linker failed');
    const id = cutNoteIds(answer.additionalContext)[0] as string;
    expect((await recallAll(id, { store })).toString()).toBe(log);
  });

  it('reads the file when opencode showed nothing of it (one line over its limit)', async () => {
    const { home, store, ctx } = machine();
    const line = `${JSON.stringify({ items: Array.from({ length: 3000 }, (_, i) => ({ i, ok: i !== 1500 })) })}\n`;
    const file = join(home, '.local/share/opencode/tool-output/tool_2');
    writeFileSync(file, line);
    const answer = (await opencodeHook(
      { tool: 'bash', output: shownOf(file, '(no output)'), outputPath: file },
      ctx,
    )) as {
      additionalContext: string;
    };
    expect((await recallAll(cutNoteIds(answer.additionalContext)[0] as string, { store })).toString()).toBe(
      line,
    );
  });

  it('never reads a file outside opencode’s output folder, through a link, or that does not end as opencode showed', async () => {
    const { home, file, ctx, tail } = machine();
    const outside = join(home, 'secret.txt');
    writeFileSync(outside, log);
    const link = join(home, '.local/share/opencode/tool-output/tool_link');
    symlinkSync(outside, link);
    for (const path of [outside, link])
      await expect(
        opencodeHook({ tool: 'bash', output: shownOf(path, tail), outputPath: path }, ctx),
      ).rejects.toThrow(/left the output as it was/);
    await expect(
      opencodeHook({ tool: 'bash', output: shownOf(file, 'not its end'), outputPath: file }, ctx),
    ).rejects.toThrow(/not the end of this file/);
  });

  it('leaves alone an output opencode did not cut, and other tools', async () => {
    const { file, ctx } = machine();
    expect(await opencodeHook({ tool: 'bash', output: 'ok', outputPath: file }, ctx)).toBeUndefined();
    expect(
      await opencodeHook({ tool: 'read', output: shownOf(file, 'x'), outputPath: file }, ctx),
    ).toBeUndefined();
  });
});
