import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from './file-store.js';
import { applyRetention, DAY_MS } from './retention.js';

const MIN = 60_000;
const now = Date.UTC(2026, 10, 30, 12);

function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'spillway-prune-'));
  const base = join(root, 'tool-results');
  const file = (rel: string, bytes: number, ageMs: number) => {
    const path = join(base, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, Buffer.alloc(bytes, 120));
    const t = new Date(now - ageMs);
    utimesSync(path, t, t);
    return path;
  };
  return { root, base, file };
}

describe('prune (retention)', () => {
  it('is fine with a missing base', async () => {
    expect(await applyRetention(join(tmpdir(), 'does-not-exist-spillway'), { now })).toEqual({
      removed: [],
      freedBytes: 0,
      remainingBytes: 0,
      leftAlone: [],
    });
  });

  it('expires stash entries one by one and removes sessions idle past the keep age', async () => {
    const { base, file } = fixture();
    const oldStash = file('pruned/old.txt', 10, 31 * DAY_MS);
    const newStash = file('pruned/new.txt', 10, 1 * DAY_MS);
    file('ancient/a.txt', 100, 40 * DAY_MS);
    file('ancient/b.txt', 100, 35 * DAY_MS);
    file('mixed/a.txt', 100, 40 * DAY_MS);
    file('mixed/b.txt', 100, 2 * DAY_MS);
    const report = await applyRetention(base, { now });
    expect(report.removed.map((r) => [r.path.slice(base.length + 1), r.reason])).toEqual([
      ['pruned/old.txt', 'expired_stash'],
      ['ancient', 'old_session'],
    ]);
    expect(report.freedBytes).toBe(210);
    expect(existsSync(oldStash)).toBe(false);
    expect(existsSync(newStash)).toBe(true);
    expect(existsSync(join(base, 'ancient'))).toBe(false);
    // A session is judged by its newest file: "mixed" is still in use.
    expect(existsSync(join(base, 'mixed', 'a.txt'))).toBe(true);
    expect(report.remainingBytes).toBe(210);
  });

  it('keeps the session running now even when it is old', async () => {
    const { base, file } = fixture();
    file('current/a.txt', 100, 40 * DAY_MS);
    const report = await applyRetention(base, { now, keep: 'current' });
    expect(report.removed).toEqual([]);
    expect(existsSync(join(base, 'current', 'a.txt'))).toBe(true);
  });

  it('over the total, removes the oldest idle sessions first, never kept or active ones', async () => {
    const { base, file } = fixture();
    file('oldest/a.txt', 400, 5 * DAY_MS);
    file('older/a.txt', 400, 2 * DAY_MS);
    file('kept/a.txt', 400, 10 * DAY_MS);
    file('active/a.txt', 400, 5 * MIN);
    file('idle/a.txt', 400, 20 * MIN);
    const report = await applyRetention(base, { now, keep: 'kept', maxTotalBytes: 1000 });
    expect(report.removed.map((r) => [r.path.slice(base.length + 1), r.reason])).toEqual([
      ['oldest', 'over_total'],
      ['older', 'over_total'],
      ['idle', 'over_total'],
    ]);
    expect(existsSync(join(base, 'kept', 'a.txt'))).toBe(true);
    expect(existsSync(join(base, 'active', 'a.txt'))).toBe(true);
    // Still over, but what is left is kept or active: it stays.
    expect(report.remainingBytes).toBe(800);
  });

  it('reports without removing on a dry run', async () => {
    const { base, file } = fixture();
    const path = file('ancient/a.txt', 100, 40 * DAY_MS);
    const report = await applyRetention(base, { now, dryRun: true });
    expect(report.removed).toHaveLength(1);
    expect(report.freedBytes).toBe(100);
    expect(existsSync(path)).toBe(true);
  });

  it('removes only what spillway wrote and never follows a symbolic link', async () => {
    const { root, base, file } = fixture();
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'precious.txt'), 'keep me');
    file('ancient/a.txt', 100, 40 * DAY_MS);
    writeFileSync(join(base, 'ancient', 'notes.md'), 'not ours');
    symlinkSync(join(outside, 'precious.txt'), join(base, 'ancient', 'link.txt'));
    symlinkSync(outside, join(base, 'linked-session'));
    await applyRetention(base, { now });
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('keep me');
    expect(existsSync(join(base, 'ancient', 'a.txt'))).toBe(false);
    expect(existsSync(join(base, 'ancient', 'notes.md'))).toBe(true);
  });

  it('touches only directories named like sessions (and the stash), and says which it left', async () => {
    const { base, file } = fixture();
    const foreign = file('not.a.session/notes.txt', 100, 90 * 24 * 60 * MIN);
    const old = file('old-session/call.txt', 100, 90 * 24 * 60 * MIN);
    const report = await applyRetention(base, { now });
    expect(existsSync(foreign)).toBe(true);
    expect(existsSync(old)).toBe(false);
    expect(report.leftAlone).toEqual([join(base, 'not.a.session')]);
  });

  it('clears temp files left by writes that died', async () => {
    const { base, file } = fixture();
    const dead = file('sess/.c.txt.123.abc.tmp', 50, 2 * 60 * MIN);
    const live = file(`sess/.d.txt.${process.pid}.abd.tmp`, 50, 1 * MIN);
    // A young one whose writer is gone (killed mid-write) does not wait an hour.
    const killed = file(`sess/.e.txt.${2 ** 22 + 4321}.abe.tmp`, 50, 1 * MIN);
    file('sess/a.txt', 10, 1 * MIN);
    const report = await applyRetention(base, { now });
    expect(report.removed.map((r) => r.reason)).toEqual(['stale_temp', 'stale_temp']);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it('runs on the first spill of a process, once per base', async () => {
    const { base, file } = fixture();
    const old = file('ancient/a.txt', 100, 40 * DAY_MS);
    const store = new FileStore({ base });
    await store.put({ dir: 'now', name: 'c' }, Buffer.from('x'));
    expect(existsSync(old)).toBe(false);
    const again = file('ancient2/a.txt', 100, 40 * DAY_MS);
    await store.put({ dir: 'now', name: 'd' }, Buffer.from('y'));
    expect(existsSync(again)).toBe(true);
  });
});
