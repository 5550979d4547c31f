import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cap } from '../src/store/cap.js';
import { FileStore } from '../src/store/file-store.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { ms, ratio } from './measure.js';

async function timeAsync(fn: (i: number) => Promise<unknown>, runs: number): Promise<number> {
  await fn(-1);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

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
