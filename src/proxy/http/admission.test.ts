import { describe, expect, it } from 'vitest';
import { Admission } from './admission.js';

describe('admission to the rewrite path', () => {
  it('lets in at most maxConcurrent, in arrival order', async () => {
    const admission = new Admission({ maxConcurrent: 2, maxBytes: 1000, maxWaitMs: 5000 });
    const a = await admission.enter(1);
    const b = await admission.enter(1);
    const order: string[] = [];
    const entered = (name: string) => (release: (() => void) | undefined) => {
      order.push(name);
      return release;
    };
    const c = admission.enter(1).then(entered('c'));
    const d = admission.enter(1).then(entered('d'));
    expect(admission.load).toEqual({ running: 2, bytes: 2, waiting: 2 });
    a?.();
    (await c)?.();
    b?.();
    (await d)?.();
    expect(order).toEqual(['c', 'd']);
    expect(admission.load).toEqual({ running: 0, bytes: 0, waiting: 0 });
  });

  it('holds bytes in flight to maxBytes, but always lets one request in', async () => {
    const admission = new Admission({ maxConcurrent: 10, maxBytes: 100, maxWaitMs: 5000 });
    const big = await admission.enter(500);
    expect(big).toBeDefined();
    let second: (() => void) | undefined;
    const waiting = admission.enter(60).then((r) => {
      second = r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(second).toBeUndefined();
    big?.();
    await waiting;
    expect(admission.load.bytes).toBe(60);
    second?.();
  });

  it('gives up after maxWaitMs, so the request can pass through unmodified', async () => {
    const admission = new Admission({ maxConcurrent: 1, maxBytes: 100, maxWaitMs: 30 });
    const held = await admission.enter(1);
    expect(await admission.enter(1)).toBeUndefined();
    expect(admission.load.waiting).toBe(0);
    held?.();
    expect(await admission.enter(1)).toBeDefined();
  });
});
