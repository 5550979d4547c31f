import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.js';
import type { ByteStore } from '../store/byte-store.js';
import { STASH_DIR, type StoreKey } from '../store/ids.js';
import { BAD_PARTS } from './store-contract.js';

/** Makes a fresh, empty backend. */
export type ByteStoreFactory = () => Promise<ByteStore>;

const limits = Object.freeze({ maxFileBytes: 100, maxSessionBytes: 200, maxTotalBytes: 300 });
const k = (dir: string, name: string): StoreKey => ({ dir, name });
const body = (n: number, fill = 'x') => Buffer.alloc(n, fill);

async function held(bytes: ByteStore): Promise<[string, number][]> {
  return (await bytes.list()).map((d) => [d.name, d.bytes]);
}

/**
 * What every backend promises the quota layer above it, run against each (memory, file, Redis,
 * Redis Cluster): a guarded write refuses what would pass a quota, says by how much, and removes
 * nothing (what to remove is decided above); the usage it counts is what it holds.
 */
export function byteStoreContract(name: string, make: ByteStoreFactory): void {
  describe(`ByteStore contract: ${name}`, () => {
    it('writes by mode and says what it did', async () => {
      const bytes = await make();
      expect(await bytes.write(k('s', 'a'), Buffer.from('one'), 'put', limits)).toEqual({
        ok: true,
        stored: 3,
      });
      expect(await bytes.write(k('s', 'a'), Buffer.from('two!'), 'nx', limits)).toEqual({
        ok: false,
        reason: 'exists',
      });
      expect(await bytes.write(k('s', 'a'), Buffer.from('+'), 'append', limits)).toEqual({
        ok: true,
        stored: 1,
      });
      expect((await bytes.read(k('s', 'a')))?.toString()).toBe('one+');
      // An append past the entry's limit: refused, nothing of it written.
      expect(await bytes.write(k('s', 'a'), body(97), 'append', limits)).toMatchObject({
        ok: false,
        reason: 'entry',
      });
      expect((await bytes.read(k('s', 'a')))?.toString()).toBe('one+');
      expect(await bytes.usedBytes()).toBe(4);
    });

    it('refuses a write past a quota, says how much to free, and removes nothing', async () => {
      const bytes = await make();
      await bytes.write(k('s1', 'a'), body(100), 'put', limits);
      await bytes.write(k('s1', 'b'), body(50), 'put', limits);
      await bytes.write(k(STASH_DIR, 'h'), body(100), 'put', limits);
      expect(await bytes.write(k('s1', 'c'), body(60), 'put', limits)).toMatchObject({
        ok: false,
        reason: 'session',
        held: 150,
      });
      expect(await bytes.write(k('s2', 'a'), body(80), 'put', limits)).toEqual({
        ok: false,
        reason: 'total',
        held: 250,
        need: 30,
      });
      // The stash is no session: only the total holds it.
      expect(await bytes.write(k(STASH_DIR, 'i'), body(60), 'put', limits)).toMatchObject({
        reason: 'total',
        need: 10,
      });
      expect(await held(bytes)).toEqual([
        ['pruned', 100],
        ['s1', 150],
      ]);
      expect(await bytes.read(k('s2', 'a'))).toBeNull();
      expect(await bytes.usedBytes()).toBe(250);
    });

    it('counts a replaced body once', async () => {
      const bytes = await make();
      await bytes.write(k('s', 'a'), body(100), 'put', limits);
      await bytes.write(k('s', 'a'), body(40), 'put', limits);
      expect(await held(bytes)).toEqual([['s', 40]]);
      expect(await bytes.usedBytes()).toBe(40);
    });

    it('removes an entry, and a whole directory, with their bytes', async () => {
      const bytes = await make();
      await bytes.write(k('s1', 'a'), body(10), 'put', limits);
      await bytes.write(k('s1', 'b'), body(20), 'put', limits);
      await bytes.write(k('s2', 'a'), body(5), 'put', limits);
      await bytes.write(k(STASH_DIR, 'h'), body(7), 'put', limits);
      expect(await bytes.remove(k(STASH_DIR, 'h'))).toBe(true);
      expect(await bytes.remove(k(STASH_DIR, 'h'))).toBe(false);
      expect(await bytes.removeDir('s1')).toBe(30);
      expect(await bytes.removeDir('s1')).toBe(0);
      expect(await bytes.read(k('s1', 'a'))).toBeNull();
      expect(await bytes.list('s1')).toEqual([]);
      expect(await bytes.usedBytes()).toBe(5);
      // The stash is a directory like any other.
      await bytes.write(k(STASH_DIR, 'i'), body(3), 'put', limits);
      await bytes.write(k(STASH_DIR, 'j'), body(4), 'put', limits);
      expect(await bytes.removeDir(STASH_DIR)).toBe(7);
      expect(await bytes.list(STASH_DIR)).toEqual([]);
      expect(await bytes.read(k(STASH_DIR, 'j'))).toBeNull();
      expect(await bytes.usedBytes()).toBe(5);
      // The room freed is room to write.
      expect(await bytes.write(k('s3', 'a'), body(100), 'put', limits)).toMatchObject({ ok: true });
    });

    it('lists each directory with its bytes and newest write, and its entries by name', async () => {
      const bytes = await make();
      const before = Date.now();
      await bytes.write(k('b', 'z'), body(3), 'put', limits);
      await bytes.write(k('b', 'y'), body(4), 'put', limits);
      await bytes.write(k(STASH_DIR, 'h'), body(2), 'put', limits);
      const dirs = await bytes.list();
      expect(dirs.map((d) => [d.name, d.bytes])).toEqual([
        ['b', 7],
        [STASH_DIR, 2],
      ]);
      for (const d of dirs) expect(d.mtimeMs).toBeGreaterThanOrEqual(before - 1000);
      expect((await bytes.list('b')).map((e) => [e.name, e.bytes])).toEqual([
        ['y', 4],
        ['z', 3],
      ]);
      expect((await bytes.list(STASH_DIR)).map((e) => [e.name, e.bytes])).toEqual([['h', 2]]);
    });

    it('rejects every malformed key part before using it', async () => {
      const bytes = await make();
      for (const bad of BAD_PARTS)
        for (const op of [
          () => bytes.write(k(bad, 'c'), body(1), 'put', limits),
          () => bytes.write(k('s', bad), body(1), 'append', limits),
          () => bytes.read(k(bad, 'c')),
          () => bytes.remove(k('s', bad)),
          () => bytes.removeDir(bad),
        ])
          await expect(op()).rejects.toSatisfy(
            (e) => SpillwayError.isInstance(e) && e.code === 'SPILLWAY_BAD_ID',
          );
      expect(await bytes.list()).toEqual([]);
    });
  });
}
