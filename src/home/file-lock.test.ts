import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { withLock } from './file-lock.js';

const LOCK_MODULE = resolve(import.meta.dirname, 'file-lock.ts');

/**
 * The lock module as plain JavaScript in `dir` (TypeScript's own transpiler), so contenders
 * start as bare `node` in tens of milliseconds and many are alive and waiting at every kill.
 */
function plainLockModule(dir: string): string {
  for (const [from, to] of [
    ['../errors.ts', 'errors.js'],
    ['file-lock.ts', 'home/file-lock.js'],
  ] as const) {
    const source = readFileSync(resolve(import.meta.dirname, from), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    mkdirSync(join(dir, to, '..'), { recursive: true });
    writeFileSync(join(dir, to), outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return join(dir, 'home/file-lock.js');
}

/**
 * A process that takes the lock over and over; inside, it claims an occupancy file. Finding it
 * claimed, it watches the claimant: one killed inside leaves it behind and dies (its process
 * disappears once reaped), while a live one inside at the same time lets go of it within its
 * few milliseconds: that is a violation.
 */
const CONTENDER = `
import { closeSync, openSync, readFileSync, unlinkSync, writeSync, writeFileSync, appendFileSync } from 'node:fs';
const [module, lock, occupied, violations, entries] = process.argv.slice(-5);
const { withLock } = await import(module);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const claimant = () => { try { return Number(readFileSync(occupied, 'utf8')); } catch { return -1; } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (;;) {
  await withLock(lock, async () => {
    try {
      const fd = openSync(occupied, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
    } catch {
      const other = claimant();
      for (let i = 0; i < 400 && other > 0; i++) {
        if (claimant() !== other) { appendFileSync(violations, process.pid + ' inside with ' + other + '\\n'); break; }
        if (!alive(other)) break;
        await sleep(5);
      }
      writeFileSync(occupied, String(process.pid));
    }
    await sleep(2 + Math.random() * 10);
    try { unlinkSync(occupied); } catch {}
    appendFileSync(entries, '.');
  }, { timeoutMs: 60_000 });
}
`;

function contender(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--input-type=module', '-e', CONTENDER, '--', ...args], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
}

describe('the cross-process lock', () => {
  it('keeps mutual exclusion while holders are killed at random (kill -9 inside and outside)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-kill-'));
    const files = ['base.lock', 'occupied', 'violations', 'entries'].map((f) => join(dir, f));
    writeFileSync(files[2] as string, '');
    writeFileSync(files[3] as string, '');
    const args = [plainLockModule(join(dir, 'lib')), ...files];
    const children = Array.from({ length: 8 }, () => contender(args));
    let killed = 0;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, 30 + Math.random() * 60));
      // Half the time the holder itself, killed inside; else anyone.
      const holder = Number(readFileSync(files[1] as string, { encoding: 'utf8', flag: 'a+' }) || 0);
      const inside = children.findIndex((c) => c.pid === holder);
      const k = Math.random() < 0.5 && inside >= 0 ? inside : Math.floor(Math.random() * children.length);
      children[k]?.kill('SIGKILL');
      killed++;
      children[k] = contender(args);
    }
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(0) : c.once('exit', r)))),
    );
    expect(readFileSync(files[2] as string, 'utf8')).toBe('');
    // The lock kept being taken after holders died: killed ones never held it up for long.
    expect(readFileSync(files[3] as string, 'utf8').length).toBeGreaterThan(killed);
  }, 60_000);

  it('keeps mutual exclusion when one lock is reached through two spellings of its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-link-'));
    const files = ['base.lock', 'occupied', 'violations', 'entries'].map((f) => join(dir, f));
    writeFileSync(files[2] as string, '');
    writeFileSync(files[3] as string, '');
    const linked = join(dir, '..', `${basename(dir)}-link`);
    symlinkSync(dir, linked);
    const lib = plainLockModule(join(dir, 'lib'));
    const children = Array.from({ length: 6 }, (_, i) =>
      contender([lib, i % 2 ? join(linked, 'base.lock') : (files[0] as string), ...files.slice(1)]),
    );
    await new Promise((r) => setTimeout(r, 4000));
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(
      children.map((c) => new Promise((r) => (c.exitCode !== null ? r(0) : c.once('exit', r)))),
    );
    expect(readFileSync(files[2] as string, 'utf8')).toBe('');
    expect(readFileSync(files[3] as string, 'utf8').length).toBeGreaterThan(10);
  }, 60_000);

  it('times out on a lock another live process holds, saying what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-live-'));
    const lock = join(dir, 'base.lock');
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { withLock } from ${JSON.stringify(LOCK_MODULE)};
         await withLock(${JSON.stringify(lock)}, async () => { console.log('held'); await new Promise((r) => setTimeout(r, 4000)); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((done) => holder.stdout?.once('data', done));
      await expect(withLock(lock, async () => 0, { timeoutMs: 300 })).rejects.toThrow(
        /timed out after 300 ms waiting for the lock .*another spillway process is holding it/,
      );
    } finally {
      holder.kill('SIGKILL');
    }
    // Its holder is gone now: the lock is taken at once.
    await new Promise((r) => holder.once('exit', r));
    expect(await withLock(lock, async () => 'mine', { timeoutMs: 2000 })).toBe('mine');
  });

  it('treats a symbolic link at the lock path (even a dangling one) as no lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-link-'));
    const lock = join(dir, 'base.lock');
    symlinkSync(join(dir, 'nowhere'), lock);
    expect(await withLock(lock, async () => 'taken', { timeoutMs: 1000 })).toBe('taken');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    expect(existsSync(lock)).toBe(false);
  });
});
