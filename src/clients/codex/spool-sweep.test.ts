import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SPOOL_STALE_MS, SWEEP_EVERY_MS, sweepCodexSpools } from './spool-sweep.js';

let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A spool folder with a file written `age` ms before `now`. */
function spoolWith(files: Record<string, number>, now: number) {
  root = mkdtempSync(join(tmpdir(), 'spool-sweep-'));
  const dir = join(root, 'spool');
  for (const [path, age] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), 'x');
    const t = new Date(now - age);
    utimesSync(join(dir, path), t, t);
  }
  return dir;
}

describe('sweepCodexSpools', () => {
  const now = Date.now();
  const old = SPOOL_STALE_MS + 60_000;

  it('removes spools left over from ended sessions and keeps those still written', async () => {
    const dir = spoolWith(
      { 'ended/call_1.out': old, 'ended/call_2.1': old, 'live/call_3.out': 1000, 'live/call_4.out': old },
      now,
    );
    expect(await sweepCodexSpools(dir, now)).toBe(3);
    expect(existsSync(join(dir, 'ended')), 'an emptied thread folder goes too').toBe(false);
    expect(readdirSync(join(dir, 'live'))).toEqual(['call_3.out']);
  });

  it('looks again only after its interval, and a stamp in the future does not stop it', async () => {
    const dir = spoolWith({ 't/a.out': old }, now);
    expect(await sweepCodexSpools(dir, now)).toBe(1);
    writeFileSync(join(dir, 'u.out'), 'x');
    utimesSync(join(dir, 'u.out'), new Date(now - old), new Date(now - old));
    expect(await sweepCodexSpools(dir, now + 1000)).toBe(0);
    expect(await sweepCodexSpools(dir, now + SWEEP_EVERY_MS + 1000)).toBe(1);
    const future = new Date(now + 10 * SWEEP_EVERY_MS);
    writeFileSync(join(dir, 'v.out'), 'x');
    utimesSync(join(dir, 'v.out'), new Date(now - old), new Date(now - old));
    utimesSync(join(dir, '.swept'), future, future);
    expect(await sweepCodexSpools(dir, now + 2 * SWEEP_EVERY_MS + 2000)).toBe(1);
  });

  it('removes a link planted in the spool, never what it points at', async () => {
    const dir = spoolWith({ 'thread/call.out': 1000 }, now);
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'precious'), 'keep');
    utimesSync(join(outside, 'precious'), new Date(now - old), new Date(now - old));
    symlinkSync(outside, join(dir, 'planted'));
    symlinkSync(join(outside, 'precious'), join(dir, 'thread', 'link.out'));
    await sweepCodexSpools(dir, now + 2 * SPOOL_STALE_MS);
    expect(readdirSync(outside)).toEqual(['precious']);
    expect(existsSync(join(dir, 'planted'))).toBe(false);
  });

  it('writes nothing through a stamp planted as a link, and a FIFO there does not block it', async () => {
    const dir = spoolWith({ 'thread/call.out': 1000 }, now);
    const victim = join(root, 'victim');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(dir, '.swept'));
    await sweepCodexSpools(dir, now + 2 * SWEEP_EVERY_MS);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    rmSync(join(dir, '.swept'));
    execFileSync('mkfifo', [join(dir, '.swept')]);
    // Before: the sweep opened the FIFO for writing and waited for a reader for ever.
    expect(await sweepCodexSpools(dir, now + 2 * SPOOL_STALE_MS)).toBe(1);
  });
});
