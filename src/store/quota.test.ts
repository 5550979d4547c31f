import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evictions, idleEvictions, isLive, refusal, sessionFits, stashIdsNamed } from './quota.js';

describe('the quota rules every backend keeps', () => {
  it('evicts the oldest entries first, never a spared one, and stops once enough is freed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 3 }), bytes: fc.nat(100) })),
        fc.nat(2_000),
        fc.array(fc.string({ minLength: 1, maxLength: 3 })),
        (entries, need, sparedList) => {
          const spared = new Set(sparedList);
          const out = evictions(entries, need, spared);
          const freed = out.reduce((n, e) => n + e.bytes, 0);
          expect(out.some((e) => spared.has(e.name))).toBe(false);
          // A prefix of the unspared entries, in their order (oldest first).
          const eligible = entries.filter((e) => !spared.has(e.name));
          expect(out).toEqual(eligible.slice(0, out.length));
          // Enough is freed when the unspared entries hold enough; nothing past that.
          if (eligible.reduce((n, e) => n + e.bytes, 0) >= need) expect(freed).toBeGreaterThanOrEqual(need);
          else expect(out).toEqual(eligible);
          if (out.length > 0) expect(freed - (out.at(-1)?.bytes ?? 0)).toBeLessThan(Math.max(need, 1));
        },
      ),
    );
  });

  it('removes idle sessions only, the longest idle first, and stops once enough is freed', () => {
    const session = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      bytes: fc.nat(100),
      newestMs: fc.nat(10_000),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(session, { selector: (s) => s.name }),
        fc.nat(400),
        fc.constantFrom('a', 'b', undefined),
        fc.nat(10_000),
        (sessions, need, keep, activeAgeMs) => {
          const o = { keep, now: 10_000, activeAgeMs };
          const out = idleEvictions(sessions, need, o);
          const freed = out.reduce((n, s) => n + s.bytes, 0);
          expect(out.some((s) => isLive(s, o) || s.name === keep)).toBe(false);
          const idle = sessions
            .filter((s) => !isLive(s, o))
            .sort((x, y) => x.newestMs - y.newestMs || (x.name < y.name ? -1 : 1));
          expect(out).toEqual(idle.slice(0, out.length));
          if (idle.reduce((n, s) => n + s.bytes, 0) >= need) expect(freed).toBeGreaterThanOrEqual(need);
          else expect(out).toEqual(idle);
          if (out.length > 0) expect(freed - (out.at(-1)?.bytes ?? 0)).toBeLessThan(Math.max(need, 1));
        },
      ),
    );
  });

  it('holds sessions to their quota but never the stash, and spares what frozen decisions name', () => {
    expect(sessionFits({ maxSessionBytes: 100 }, 'sess', 60, 40)).toBe(true);
    expect(sessionFits({ maxSessionBytes: 100 }, 'sess', 60, 41)).toBe(false);
    expect(sessionFits({ maxSessionBytes: 100 }, 'pruned', 60, 1_000)).toBe(true);
    expect(stashIdsNamed(['{"stashId":"Ab3","x":1}', 'a <<sw:Cd-4>> b <<sw:E_5>>'])).toEqual(
      new Set(['Ab3', 'Cd-4', 'E_5']),
    );
  });

  it('refuses growth past a session quota (naming the directory) or the total (saying how much to free)', () => {
    const limits = { maxSessionBytes: 100, maxTotalBytes: 1000 };
    const held = (dir: string) => ({ a: 60, b: 10 })[dir] ?? 0;
    expect(refusal(limits, 500, held, [['a', 40]])).toBeNull();
    expect(
      refusal(limits, 500, held, [
        ['b', 10],
        ['a', 41],
      ]),
    ).toEqual({ ok: false, reason: 'session', held: 60, dir: 'a' });
    expect(
      refusal(limits, 950, held, [
        ['b', 30],
        ['c', 30],
      ]),
    ).toEqual({ ok: false, reason: 'total', held: 950, need: 10 });
    // The stash has no session quota.
    expect(refusal(limits, 0, held, [['pruned', 1000]])).toBeNull();
  });
});
