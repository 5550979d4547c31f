import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.js';
import { FROZEN_PREFIX, STASH_DIR, type StoreKey } from '../store/ids.js';
import { putAllIfAbsent, type Store, type StoreLimits } from '../store/store.js';

/** Makes a fresh, empty store with these limits (and how long a session counts as active). */
export type StoreFactory = (limits?: Partial<StoreLimits> & { activeAgeMs?: number }) => Promise<Store>;

export const BAD_PARTS = ['../x', 'a/b/c', 'a\\b', '', 'x'.repeat(129), 'a\u0000b', '..', '.', 'a b', 'é'];

async function expectCode(promise: Promise<unknown>, code: string): Promise<SpillwayError> {
  try {
    await promise;
  } catch (err) {
    expect(SpillwayError.isInstance(err), String(err)).toBe(true);
    expect((err as SpillwayError).code).toBe(code);
    return err as SpillwayError;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

/**
 * The behaviour every Store promises, run against each backend (memory, file, Redis), so the
 * backends cannot drift apart.
 */
export function storeContract(name: string, make: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    const k = (dir: string, name: string): StoreKey => ({ dir, name });

    it('returns exactly the bytes it was given, whole or by range', async () => {
      const store = await make();
      const body = Buffer.from([0x68, 0xc3, 0xa9, 0xff, 0x00, 0xf0, 0x9f, 0x98, 0x80, 0x0a]);
      const put = await store.put(k('s1', 'c1'), body);
      expect(put).toMatchObject({ storedBytes: body.length, totalBytes: body.length, truncated: false });
      expect(await store.get(k('s1', 'c1'))).toEqual(body);
      expect(await store.get(k('s1', 'c1'), { start: 1, end: 3 })).toEqual(body.subarray(1, 3));
      expect(await store.get(k('s1', 'c1'), { start: 8, end: 100 })).toEqual(body.subarray(8));
      expect(await store.get(k('s1', 'c1'), { start: 50, end: 100 })).toEqual(Buffer.alloc(0));
      expect(await store.stat(k('s1', 'c1'))).toMatchObject({ name: 'c1', bytes: body.length });
    });

    it('answers null for what it does not hold', async () => {
      const store = await make();
      expect(await store.get(k('nobody', 'nothing'))).toBeNull();
      expect(await store.stat(k('nobody', 'nothing'))).toBeNull();
      expect(await store.delete(k('nobody', 'nothing'))).toBe(false);
      expect(await store.list('nobody')).toEqual([]);
    });

    it('replaces on put, keeps on putIfAbsent, and deletes', async () => {
      const store = await make();
      await store.put(k('s', 'c'), Buffer.from('one'));
      await store.put(k('s', 'c'), Buffer.from('two!'));
      expect((await store.get(k('s', 'c')))?.toString()).toBe('two!');
      expect(await store.putIfAbsent(k('s', 'c'), Buffer.from('three'))).toBe(false);
      expect((await store.get(k('s', 'c')))?.toString()).toBe('two!');
      expect(await store.putIfAbsent(k(STASH_DIR, 'h1'), Buffer.from('stashed'))).toBe(true);
      expect(await store.delete(k('s', 'c'))).toBe(true);
      expect(await store.get(k('s', 'c'))).toBeNull();
      // An empty entry is an entry like any other.
      await store.put(k('s', 'empty'), Buffer.alloc(0));
      expect(await store.get(k('s', 'empty'))).toEqual(Buffer.alloc(0));
      expect(await store.delete(k('s', 'empty'))).toBe(true);
      expect(await store.stat(k('s', 'empty'))).toBeNull();
    });

    it('lists directories and their entries', async () => {
      const store = await make();
      await store.put(k('b', 'x'), Buffer.from('12345'));
      await store.put(k('a', 'z'), Buffer.from('1'));
      await store.put(k('a', 'y'), Buffer.from('12'));
      const dirs = await store.list();
      expect(dirs.map((d) => [d.name, d.bytes])).toEqual([
        ['a', 3],
        ['b', 5],
      ]);
      expect((await store.list('a')).map((e) => [e.name, e.bytes])).toEqual([
        ['y', 2],
        ['z', 1],
      ]);
    });

    it('rejects every malformed key part before using it', async () => {
      const store = await make();
      for (const bad of BAD_PARTS) {
        await expectCode(store.put(k(bad, 'c'), Buffer.from('x')), 'SPILLWAY_BAD_ID');
        await expectCode(store.put(k('s', bad), Buffer.from('x')), 'SPILLWAY_BAD_ID');
        await expectCode(store.get(k(bad, 'c')), 'SPILLWAY_BAD_ID');
        await expectCode(store.stat(k('s', bad)), 'SPILLWAY_BAD_ID');
        await expectCode(store.delete(k('s', bad)), 'SPILLWAY_BAD_ID');
      }
      expect(await store.list()).toEqual([]);
    });

    it('keeps only the first maxFileBytes of a body, cut on a UTF-8 boundary', async () => {
      const store = await make({ maxFileBytes: 10 });
      const body = Buffer.from('abcdefgh😀ij');
      const put = await store.put(k('s', 'c'), body);
      expect(put).toMatchObject({ storedBytes: 8, totalBytes: body.length, truncated: true });
      expect((await store.get(k('s', 'c')))?.toString()).toBe('abcdefgh');
    });

    it('holds each session to its quota, counting a replaced body once', async () => {
      const store = await make({ maxSessionBytes: 100 });
      await store.put(k('s', 'a'), Buffer.alloc(60));
      await store.put(k('s', 'a'), Buffer.alloc(90));
      const err = await expectCode(store.put(k('s', 'b'), Buffer.alloc(20)), 'SPILLWAY_QUOTA');
      expect(err.message).toMatch(/session "s" would exceed its quota of 100 bytes/);
      expect(await store.get(k('s', 'b'))).toBeNull();
      expect((await store.get(k('s', 'a')))?.length).toBe(90);
      // Another session has its own quota; the stash is not a session.
      await store.put(k('t', 'b'), Buffer.alloc(90));
      await store.put(k(STASH_DIR, 'h'), Buffer.alloc(150));
    });

    it('stores a batch: new entries written once each, existing ones kept', async () => {
      const store = await make();
      await store.put(k(STASH_DIR, 'old'), Buffer.from('kept'));
      const written = await putAllIfAbsent(store, [
        { key: k(STASH_DIR, 'old'), body: Buffer.from('not written') },
        { key: k(STASH_DIR, 'a'), body: Buffer.from('first') },
        { key: k(STASH_DIR, 'a'), body: Buffer.from('first') },
        { key: k('s', 'b'), body: Buffer.from('second') },
      ]);
      expect(written).toBe(2);
      expect((await store.get(k(STASH_DIR, 'old')))?.toString()).toBe('kept');
      expect((await store.get(k(STASH_DIR, 'a')))?.toString()).toBe('first');
      expect((await store.get(k('s', 'b')))?.toString()).toBe('second');
      expect(await putAllIfAbsent(store, [])).toBe(0);
      await expectCode(
        putAllIfAbsent(store, [{ key: k('../x', 'a'), body: Buffer.from('x') }]),
        'SPILLWAY_BAD_ID',
      );
    });

    it('appends records after one another, creating the entry, up to maxFileBytes', async () => {
      const store = await make({ maxFileBytes: 12 });
      await store.append(k('s', 'log'), Buffer.from('\n{"a":1}'));
      await store.append(k('s', 'log'), Buffer.from('😀'));
      expect((await store.get(k('s', 'log')))?.toString()).toBe('\n{"a":1}😀');
      expect(await store.stat(k('s', 'log'))).toMatchObject({ bytes: 12 });
      expect((await store.list('s')).map((e) => e.name)).toEqual(['log']);
      // One more byte would pass the limit: refused, and nothing of it written.
      await expectCode(store.append(k('s', 'log'), Buffer.from('x')), 'SPILLWAY_QUOTA');
      expect((await store.get(k('s', 'log')))?.length).toBe(12);
      for (const bad of BAD_PARTS) {
        await expectCode(store.append(k(bad, 'log'), Buffer.from('x')), 'SPILLWAY_BAD_ID');
        await expectCode(store.append(k('s', bad), Buffer.from('x')), 'SPILLWAY_BAD_ID');
      }
    });

    it('counts appended bytes in the quotas of later writes', async () => {
      const store = await make({ maxTotalBytes: 100 });
      await store.append(k('s1', 'log'), Buffer.alloc(40));
      await store.append(k('s1', 'log'), Buffer.alloc(30));
      const err = await expectCode(store.put(k('s2', 'a'), Buffer.alloc(40)), 'SPILLWAY_QUOTA');
      expect(err.message).toMatch(/total quota of 100 bytes/);
      await store.put(k('s2', 'a'), Buffer.alloc(30));
      expect((await store.list()).map((d) => [d.name, d.bytes])).toEqual([
        ['s1', 70],
        ['s2', 30],
      ]);
    });

    it('holds the whole store to its total quota', async () => {
      const store = await make({ maxTotalBytes: 100 });
      await store.put(k('s1', 'a'), Buffer.alloc(70));
      const err = await expectCode(store.put(k('s2', 'a'), Buffer.alloc(40)), 'SPILLWAY_QUOTA');
      expect(err.message).toMatch(/total quota of 100 bytes/);
      await store.put(k('s2', 'a'), Buffer.alloc(30));
    });

    it('when full, removes the longest idle session before any stash entry, never a live one', async () => {
      const store = await make({ maxTotalBytes: 3000, activeAgeMs: 300 });
      await store.put(k('idle', 'a'), Buffer.alloc(1000, 'i'));
      await store.put(k(STASH_DIR, 'kept'), Buffer.alloc(1000, 'k'));
      await new Promise((r) => setTimeout(r, 500));
      await store.put(k('live', 'a'), Buffer.alloc(900, 'l'));
      // 500 bytes more than fit: the idle session goes; the stash entry and the live session stay.
      await store.put(k('live', 'b'), Buffer.alloc(600, 'l'));
      expect(await store.get(k('idle', 'a'))).toBeNull();
      expect((await store.get(k(STASH_DIR, 'kept')))?.length).toBe(1000);
      expect((await store.get(k('live', 'a')))?.length).toBe(900);
      // Nothing idle is left: the stash entry goes, and past that the live session is kept whole.
      await store.put(k('live', 'c'), Buffer.alloc(1000, 'l'));
      expect(await store.get(k(STASH_DIR, 'kept'))).toBeNull();
      await expectCode(store.put(k('live2', 'a'), Buffer.alloc(600)), 'SPILLWAY_QUOTA');
      expect((await store.list('live')).map((e) => e.name)).toEqual(['a', 'b', 'c']);
    });

    it('when full, keeps taking stashes: the oldest entries go, never one a frozen decision names', async () => {
      const store = await make({ maxTotalBytes: 20_000 });
      const decision = (id: string) =>
        Buffer.from(JSON.stringify({ content: `x <<sw:${id}>>`, stashId: 'named' }));
      await store.put(k(STASH_DIR, 'named'), Buffer.alloc(1000, 'n'));
      await store.put(k(STASH_DIR, 'marked'), Buffer.alloc(1000, 'm'));
      await store.put(k(STASH_DIR, 'logged'), Buffer.alloc(1000, 'l'));
      await store.put(k('live', `${FROZEN_PREFIX}1`), decision('marked'));
      await store.append(k('live', `${FROZEN_PREFIX}log`), Buffer.from(`\n{"fz_x":${decision('logged')}}`));
      // 200 stashes of 1,000 bytes into 20,000: every one lands.
      for (let i = 0; i < 200; i++)
        await store.put(k(STASH_DIR, `s${String(i).padStart(3, '0')}`), Buffer.alloc(1000, i % 256));
      const held = (await store.list()).reduce((n, d) => n + d.bytes, 0);
      expect(held).toBeLessThanOrEqual(20_000);
      expect(held).toBeGreaterThan(15_000);
      expect((await store.get(k(STASH_DIR, 'named')))?.length).toBe(1000);
      expect((await store.get(k(STASH_DIR, 'marked')))?.length).toBe(1000);
      expect((await store.get(k(STASH_DIR, 'logged')))?.length).toBe(1000);
      expect((await store.get(k(STASH_DIR, 's199')))?.equals(Buffer.alloc(1000, 199))).toBe(true);
      expect(await store.get(k(STASH_DIR, 's000'))).toBeNull();
      expect(await store.get(k('live', `${FROZEN_PREFIX}1`))).not.toBeNull();
    });
  });
}
