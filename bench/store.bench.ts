import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from '../src/store/backends/file-store.js';
import { MemoryStore } from '../src/store/backends/memory-store.js';
import { cap } from '../src/store/cap.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { ms, ratio, timeAsync } from './measure.js';

/** cap of a 15 MB output (spill + snip) against writing the same bytes with fs.writeFileSync. */
export async function benchCap(): Promise<void> {
  console.log('\n## cap: 15 MB output to 32 KiB, spilled to the file store (median of 7)');
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    for (const input of [oneLineJson(15 * MB), multiLineLog(15 * MB)]) {
      const text = input.text;
      const bytes = Buffer.from(text);
      const store = new FileStore({ base: join(root, 'tool-results'), pruneOnFirstSpill: false });
      const plain = await timeAsync(async (i) => writeFileSync(join(root, `plain-${i}.txt`), text), 7);
      const synced = await timeAsync(async (i) => {
        const fd = openSync(join(root, `synced-${i}.txt`), 'w', 0o600);
        writeSync(fd, bytes);
        fsyncSync(fd);
        closeSync(fd);
      }, 7);
      const capped = await timeAsync(
        (i) => cap(text, { maxBytes: 32 * 1024, session: 'bench', call: `c${i + 1}`, store }),
        7,
      );
      console.log(`\n${input.source}, ${(bytes.length / MB).toFixed(1)} MB:`);
      console.log(`  fs.writeFileSync            ${ms(plain).padStart(9)}  1.00x`);
      console.log(
        `  write + fsync               ${ms(synced).padStart(9)}  ${ratio(synced, plain)} of writeFileSync`,
      );
      console.log(
        `  cap (lock, quota, atomic write + fsync, snip)  ${ms(capped).padStart(9)}  ${ratio(capped, plain)} of writeFileSync, ${ratio(capped, synced)} of write + fsync`,
      );
      rmSync(join(root, 'tool-results'), { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** put/get throughput of 64 KB bodies: the Redis store against the file store, in the same run. */
export async function benchStores(): Promise<void> {
  console.log('\n## store throughput: 64 KB bodies, 300 puts then 300 gets (sequential)');
  const { spawnSync } = await import('node:child_process');
  const body = Buffer.from(multiLineLog(64 * 1024).text.slice(0, 64 * 1024));
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  const run = async (name: string, store: import('../src/store/store.js').Store) => {
    const n = 300;
    let t = performance.now();
    for (let i = 0; i < n; i++) await store.put({ dir: 'bench', name: `b${i}` }, body);
    const put = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < n; i++) await store.get({ dir: 'bench', name: `b${i}` });
    const get = performance.now() - t;
    const mbs = (ms: number) => ((n * body.length) / (1024 * 1024) / (ms / 1000)).toFixed(1);
    console.log(
      `  ${name.padEnd(28)} put ${(n / (put / 1000)).toFixed(0).padStart(6)}/s (${mbs(put)} MB/s)   get ${(n / (get / 1000)).toFixed(0).padStart(6)}/s (${mbs(get)} MB/s)`,
    );
    return { put, get };
  };
  try {
    const file = await run(
      'file store (fsync)',
      new FileStore({ base: join(root, 'tool-results'), pruneOnFirstSpill: false }),
    );
    await appendGrowth('memory', new MemoryStore());
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      console.log('  redis: skipped (no redis-server on this machine)');
      return;
    }
    const { startRedis } = await import('../src/test-support/redis.js');
    const { RedisStore } = await import('../src/store/backends/redis-store.js');
    const redis = await startRedis();
    const store = await RedisStore.connect(redis.url);
    try {
      const r = await run('redis store (local server)', store);
      console.log(`  redis / file: put ${ratio(r.put, file.put)} of the time, get ${ratio(r.get, file.get)}`);
      // A put's cost must not grow with the session it lands in (it used to re-expire every entry).
      const small = Buffer.alloc(200, 'd');
      const putAt = async (held: number) => {
        for (let i = (await store.list('big')).length; i < held; i++)
          await store.put({ dir: 'big', name: `e${i}` }, small);
        const t = performance.now();
        for (let i = 0; i < 50; i++) await store.put({ dir: 'big', name: `x${held}_${i}` }, small);
        return (performance.now() - t) / 50;
      };
      const at4k = await putAt(4000);
      const at12k = await putAt(12_000);
      console.log(
        `  redis put into a session of 4,000 entries ${ms(at4k)}, of 12,000 ${ms(at12k)} (${ratio(at12k, at4k)})`,
      );
      await appendGrowth('redis', store);
    } finally {
      await store.close();
      await redis.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A store's appends against what it already holds: into a store of 10,000 sessions against one
 * of 100, and onto a log of 5,000 records against one of 50 (the memory store once recounted
 * every entry on each write and copied the whole log on each append; the Redis store summed
 * every session's usage on each write).
 */
async function appendGrowth(name: string, store: import('../src/store/store.js').Store): Promise<void> {
  const record = Buffer.alloc(300, 'r');
  let sessions = 0;
  const intoStoreOf = async (held: number) => {
    for (; sessions < held; sessions++) await store.append({ dir: `s${sessions}`, name: 'fz_log' }, record);
    const t = performance.now();
    for (let i = 0; i < 200; i++) await store.append({ dir: `n${held}_${i}`, name: 'fz_log' }, record);
    return (performance.now() - t) / 200;
  };
  let records = 0;
  const ontoLogOf = async (held: number) => {
    for (; records < held; records++) await store.append({ dir: 'long', name: 'fz_log' }, record);
    const t = performance.now();
    for (let i = 0; i < 50; i++) await store.append({ dir: 'long', name: 'fz_log' }, record);
    records += 50;
    return (performance.now() - t) / 50;
  };
  const [few, many] = [await intoStoreOf(100), await intoStoreOf(10_000)];
  const [short, long] = [await ontoLogOf(50), await ontoLogOf(5_000)];
  const us = (x: number) => `${(x * 1000).toFixed(1)} µs`;
  console.log(
    `  ${name} store append: into 10,000 sessions ${us(many)} vs 100 ${us(few)} (${ratio(many, few)}); onto a log of 5,000 records ${us(long)} vs 50 ${us(short)} (${ratio(long, short)})`,
  );
}
