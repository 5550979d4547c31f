import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { RUN_MAX_CHARS } from './commands/run.js';

const newDir = () => join(mkdtempSync(join(tmpdir(), 'spillway-run-')), 'tool-results');
const ERROR = "src/cart.c:412:9: error: use of undeclared identifier 'totl'";
// A ~600 KB build log with one error in the middle, printed by a real program.
const BUILD_LOG = `for (let i = 1; i <= 6000; i++) console.log(i === 3100 ? ${JSON.stringify(ERROR)} : '[' + i + '/6000] CC build/obj/module_' + (i % 97) + '/file_' + i + '.o -O2 -Wall -fPIC -Iinclude -DNDEBUG')`;

describe('spillway run', () => {
  it('prints a small output unchanged, stdout and stderr in the order written, with the exit status', async () => {
    const r = await cli(['run', '--dir', newDir(), '--', 'sh', '-c', 'echo a; echo b >&2; echo c; exit 3']);
    expect(r.stdout).toBe('a\nb\nc\n');
    expect(r.code).toBe(3);
  });

  it('collapses a large output to the budget, keeps the error from the middle, and stashes the exact bytes', async () => {
    const dir = newDir();
    const r = await cli(['run', '--dir', dir, '--', process.execPath, '-e', BUILD_LOG]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(ERROR);
    expect(getTokenizer('o200k').count(r.stdout)).toBeLessThanOrEqual(2000);
    expect(r.stdout.length).toBeLessThanOrEqual(RUN_MAX_CHARS);
    const id = /<<sw:([\w-]+)>> or (\S+)\)/.exec(r.stdout);
    expect(id).not.toBeNull();
    const all = await cli(['expand', id?.[1] as string, '--all', '--dir', dir]);
    expect(all.stdout.split('\n')).toHaveLength(6001);
    expect(all.stdout.split('\n')[3099]).toBe(ERROR);
    // The marker also names the stashed file, for an agent with no recall tool.
    expect(existsSync(id?.[2] as string)).toBe(true);
    const grep = await cli(['expand', id?.[1] as string, '--grep', 'error', '--dir', dir]);
    expect(grep.stdout).toContain(ERROR);
  });

  it('keeps bytes that are not UTF-8 exactly in the stash', async () => {
    const dir = newDir();
    const file = join(dir, '..', 'bytes.bin');
    const bytes = Buffer.concat(
      Array.from({ length: 4000 }, (_, i) => Buffer.from([0xff, 0xfe, 0x41 + (i % 26), 0x0a])),
    );
    writeFileSync(file, bytes);
    const r = await cli(['run', '--dir', dir, '--tokens', '200', '--', 'cat', file]);
    const id = /<<sw:([\w-]+)>>/.exec(r.stdout)?.[1] as string;
    const all = await cli(['expand', id, '--all', '--dir', dir]);
    expect(all.raw.equals(bytes)).toBe(true);
  });

  it('passes standard input to the command', async () => {
    const r = await cli(['run', '--dir', newDir(), 'cat'], { stdin: 'from stdin\n' });
    expect(r.stdout).toBe('from stdin\n');
  });

  it('reports a signal as 128+N and a missing command as 127, the shell way', async () => {
    expect((await cli(['run', '--dir', newDir(), '--', 'sh', '-c', 'kill -TERM $$'])).code).toBe(143);
    const missing = await cli(['run', '--dir', newDir(), '--', 'no-such-command-here']);
    expect(missing.code).toBe(127);
    expect(missing.stdout).toMatch(/not found/);
  });

  it('does not wait for ever on a background process that keeps the pipe open', async () => {
    const r = await cli(['run', '--dir', newDir(), '--', 'sh', '-c', 'echo started; sleep 2 & echo done']);
    expect(r.stdout).toBe('started\ndone\n');
  });

  it('refuses bad usage before running anything (exit 2)', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'spillway-run-')), 'ran');
    const bad = await cli(['run', '--tokens', 'many', '--', 'touch', marker]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--tokens needs a whole number/);
    expect(existsSync(marker)).toBe(false);
    const none = await cli(['run']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/run needs a COMMAND/);
  });

  it('prints the whole output when the original cannot be stashed, and says so', async () => {
    const notADir = join(mkdtempSync(join(tmpdir(), 'spillway-run-')), 'file');
    writeFileSync(notADir, 'x');
    const r = await cli(['run', '--dir', notADir, '--', process.execPath, '-e', BUILD_LOG]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(6001);
    expect(r.stderr).toMatch(/not shortened/);
    // Its own bytes, even where they are not UTF-8.
    const file = join(notADir, '..', 'bytes.bin');
    const bytes = Buffer.concat(
      Array.from({ length: 4000 }, (_, i) => Buffer.from([0xff, 0x41 + (i % 26), 0x0a])),
    );
    writeFileSync(file, bytes);
    const b = await cli(['run', '--dir', notADir, '--tokens', '200', '--', 'cat', file]);
    expect(b.raw.equals(bytes)).toBe(true);
  });
});

describe('spillway run, anywhere and at any size', () => {
  it('runs with no temporary folder to write (a read-only sandbox, TMPDIR missing)', async () => {
    const r = await cli(['run', '--dir', newDir(), '--', 'sh', '-c', 'echo hi; echo err >&2'], {
      env: { ...process.env, TMPDIR: '/nonexistent-spillway-tmp' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hi\nerr\n');
  });

  it('ends an output past one stash entry (100 MB) as a collapse with its last line, the kept part recallable', async () => {
    const dir = newDir();
    const r = await cli([
      'run',
      '--dir',
      dir,
      '--',
      'sh',
      '-c',
      'yes ok | head -c 100000000; echo "FATAL: the last line"',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('FATAL: the last line');
    expect(r.stdout.length).toBeLessThanOrEqual(25_000);
    const id = /<<sw:([\w-]+)>>/.exec(r.stdout)?.[1] as string;
    const grep = await cli(['expand', id, '--grep', 'FATAL|past the', '--dir', dir]);
    expect(grep.stdout).toContain('FATAL: the last line');
    expect(grep.stdout).toMatch(/bytes in the middle of this output were past the \d+-byte limit/);
  }, 120_000);
});
