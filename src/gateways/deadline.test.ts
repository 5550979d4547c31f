import { describe, expect, it } from 'vitest';
import { Admission } from '../proxy/index.js';
import { admit, type WorkHold, withinDeadline } from './deadline.js';

describe('the deadline', () => {
  it('gives the value in time, and why not otherwise', async () => {
    expect(await withinDeadline(async () => 7, 1000)).toEqual({ value: 7 });
    expect(await withinDeadline(() => new Promise(() => {}), 20)).toEqual({
      failOpen: 'over the deadline of 20 ms',
    });
    expect(await withinDeadline(() => Promise.reject(new Error('store down')), 1000)).toEqual({
      failOpen: 'store down',
    });
    expect(await withinDeadline(async () => 7, 0)).toMatchObject({
      failOpen: expect.stringContaining('spent'),
    });
  });

  it('waits for room for a large body within the deadline, and gives back room granted too late', async () => {
    const admission = new Admission({ maxConcurrent: 1, maxWaitMs: 60_000 });
    const small = await admit(admission, 1000, 10);
    expect(admission.load.running).toBe(0);
    small?.();
    const first = await admit(admission, 5_000_000, 1000);
    expect(first).toBeTypeOf('function');
    // No room while the first holds it: the second gives up at its deadline ...
    expect(await admit(admission, 5_000_000, 20)).toBeUndefined();
    expect(admission.load).toMatchObject({ running: 1, waiting: 1 });
    // ... and the room it is granted later is given back at once.
    first?.();
    await new Promise((r) => setImmediate(r));
    expect(admission.load).toEqual({ running: 0, bytes: 0, waiting: 0 });
  });

  it('tells when work past the deadline really ends, so its room is given back only then', async () => {
    let finish = () => {};
    const work = new Promise<number>((resolve) => {
      finish = () => resolve(7);
    });
    const hold: WorkHold = { settled: Promise.resolve() };
    expect(await withinDeadline(() => work, 20, 20, hold)).toEqual({
      failOpen: 'over the deadline of 20 ms',
    });
    let ended = false;
    void hold.settled.then(() => {
      ended = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Answered already, the work still running: its room is still held.
    expect(ended).toBe(false);
    finish();
    await hold.settled;
    expect(ended).toBe(true);
  });
});
