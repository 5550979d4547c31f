import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { recallAll } from '../store/recall.js';
import { markerIds } from '../text/markers.js';
import { claudeHook } from './claude.js';
import { codexHook, geminiHook } from './shell-hooks.js';
import { isWrappedInRun, shellQuote, wrapInRun } from './spillway-command.js';

// biome-ignore lint/suspicious/noExplicitAny: hook answers and client settings, read field by field
type Json = any;

const spillway = { command: '/usr/bin/node', args: ['/opt/spill way/dist/cli.js'] };
const log = Array.from({ length: 5000 }, (_, i) =>
  i === 2500 ? 'error: linker failed' : `compiling unit ${i}`,
).join('\n');

function claudeMachine() {
  const home = mkdtempSync(join(tmpdir(), 'spillway-hook-'));
  const dir = join(home, '.claude/projects/-work/sess/tool-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'b1.txt');
  writeFileSync(file, log);
  const store = new MemoryStore();
  const ctx = { env: { HOME: home }, spillway, store: async () => store };
  const input = (path: string, stdout = log.slice(0, 30_000)) => ({
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_response: {
      stdout,
      stderr: '',
      interrupted: false,
      persistedOutputPath: path,
      persistedOutputSize: log.length,
    },
  });
  return { home, file, store, ctx, input };
}

describe('claude hook', () => {
  it('replaces a persisted preview with a collapse of the saved file, the file stashed exactly', async () => {
    const { file, store, ctx, input } = claudeMachine();
    const answer = (await claudeHook(input(file), ctx)) as Json;
    const out = answer.hookSpecificOutput.updatedToolOutput;
    expect(answer.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.stdout).toContain('error: linker failed');
    expect(out.stdout).toContain(file);
    expect(out).not.toHaveProperty('persistedOutputPath');
    const id = markerIds(out.stdout)[0] as string;
    expect((await recallAll(id, { store })).toString()).toBe(log);
  });

  it('never reads a file outside Claude Code’s projects folder, through a link, or that the preview does not start', async () => {
    const { home, file, ctx, input } = claudeMachine();
    const secret = join(home, 'id_rsa');
    writeFileSync(secret, log);
    const link = join(home, '.claude/projects/-work/sess/tool-results/link.txt');
    symlinkSync(secret, link);
    const linkedDir = join(home, '.claude/projects/elsewhere');
    symlinkSync(home, linkedDir);
    for (const [path, why] of [
      [secret, /not inside/],
      [link, /not inside/],
      [join(linkedDir, 'id_rsa'), /not inside/],
      ['relative/b1.txt', /not absolute/],
    ] as const) {
      const answer = (await claudeHook(input(path), ctx)) as Json;
      expect(answer?.hookSpecificOutput, path).toBeUndefined();
      expect(answer.systemMessage).toMatch(why);
    }
    const other = (await claudeHook(input(file, 'a different preview'), ctx)) as Json;
    expect(other.systemMessage).toMatch(/not the beginning of this file/);
  });

  it('leaves other tools and results with no saved file alone', async () => {
    const { ctx } = claudeMachine();
    expect(
      await claudeHook({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_response: {} }, ctx),
    ).toBeUndefined();
    expect(
      await claudeHook(
        { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: { stdout: 'ok' } },
        ctx,
      ),
    ).toBeUndefined();
  });
});

describe('codex and gemini hooks', () => {
  const ctx = { env: {}, spillway, store: async () => new MemoryStore() };
  it('wrap the shell command in spillway run once, keeping the other fields', () => {
    const codex = codexHook(
      {
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'make -j4', workdir: '/w' },
      },
      ctx,
    ) as Json;
    expect(codex.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
    });
    expect(codex.hookSpecificOutput.updatedInput).toEqual({
      command: `/usr/bin/node '/opt/spill way/dist/cli.js' run -- bash -c 'make -j4'`,
      workdir: '/w',
    });
    const wrapped = codex.hookSpecificOutput.updatedInput.command;
    expect(isWrappedInRun(wrapped)).toBe(true);
    expect(
      codexHook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: wrapped } }, ctx),
    ).toBeUndefined();
    const gemini = geminiHook(
      {
        hook_event_name: 'BeforeTool',
        tool_name: 'run_shell_command',
        tool_input: { command: 'ls', dir_path: 'src' },
      },
      ctx,
    ) as Json;
    expect(gemini.hookSpecificOutput.tool_input).toEqual({
      command: wrapInRun('ls', spillway),
      dir_path: 'src',
    });
    expect(
      geminiHook({ hook_event_name: 'BeforeTool', tool_name: 'read_file', tool_input: {} }, ctx),
    ).toBeUndefined();
  });

  it('property: a quoted command reaches bash exactly as written', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0')),
        (text) => {
          const r = spawnSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(text)}`], { encoding: 'utf8' });
          expect(r.stdout).toBe(text);
        },
      ),
      { numRuns: 60 },
    );
  });
});
