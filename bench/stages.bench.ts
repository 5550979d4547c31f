import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collapseText } from '../src/collapse/index.js';
import { FileStore } from '../src/store/backends/file-store.js';
import { MemoryStore } from '../src/store/backends/memory-store.js';
import { stashKey } from '../src/store/ids.js';
import type { Store } from '../src/store/store.js';
import { originalOf } from '../src/text/content-hash.js';
import { getTokenizer } from '../src/text/tokenizers/index.js';
import { apiAnswer, MB, multiLineLog, oneLineJson } from './inputs.js';
import { ms, ratio, timeAsync } from './measure.js';

/** collapse of 15 MB (and of a 3.5 MB JSON answer) to 3,000 o200k tokens, against sha256 of the same string. */
export async function benchCollapse(): Promise<void> {
  console.log(
    '\n## collapse: 15 MB, and a 3.5 MB JSON answer, to 3000 o200k tokens (median of 7; baseline: sha256 of the same string)',
  );
  const tokenizer = getTokenizer('o200k');
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    for (const input of [oneLineJson(15 * MB), multiLineLog(15 * MB), apiAnswer(3.5 * MB)]) {
      const text = input.text;
      const sha = await timeAsync(async () => createHash('sha256').update(text).digest(), 7);
      const run = async (store: Store) => {
        // The whole job as the engine does it (the runner's Original): encode and hash the
        // original once for its id, fit the window with the real marker, stash before returning.
        const original = originalOf(text);
        return collapseText(
          text,
          { budget: 3000 },
          {
            tokenizer,
            id: () => original.id(),
            stash: () => store.putIfAbsent(stashKey(original.id()), original.body()),
          },
        );
      };
      const fitOnly = await timeAsync(
        () =>
          collapseText(
            text,
            { budget: 3000 },
            { tokenizer, id: () => 'A'.repeat(22), stash: async () => {} },
          ),
        7,
      );
      const encodeHash = await timeAsync(async () => originalOf(text).id(), 7);
      const memory = new MemoryStore({ maxTotalBytes: 2 ** 40, maxFileBytes: 2 ** 30 });
      const tMemory = await timeAsync(
        () => run(new MemoryStore({ maxTotalBytes: 2 ** 40, maxFileBytes: 2 ** 30 })),
        7,
      );
      const files = () =>
        new FileStore({
          base: join(root, `s${Math.random()}`),
          pruneOnFirstSpill: false,
          maxFileBytes: 2 ** 30,
        });
      const tFile = await timeAsync(() => run(files()), 7);
      const out = await run(memory);
      const calls = out.action === 'acted' ? out.tokenizerCalls : 0;
      const tokens = out.action === 'acted' ? tokenizer.count(out.text) : 0;
      console.log(
        `\n${input.source}, ${(Buffer.byteLength(text) / MB).toFixed(1)} MB, ${out.action === 'acted' ? `${out.window} window` : out.action}, ${tokens} tokens out, ${calls} tokenizer calls:`,
      );
      console.log(`  sha256                         ${ms(sha).padStart(9)}  1.00x`);
      console.log(
        `  window fit only (no stash)     ${ms(fitOnly).padStart(9)}  ${ratio(fitOnly, sha)} of sha256`,
      );
      console.log(
        `  encode + hash the original     ${ms(encodeHash).padStart(9)}  ${ratio(encodeHash, sha)} of sha256`,
      );
      console.log(
        `  collapse, memory store         ${ms(tMemory).padStart(9)}  ${ratio(tMemory, sha)} of sha256`,
      );
      console.log(
        `  collapse, file store (fsync)   ${ms(tFile).padStart(9)}  ${ratio(tFile, sha)} of sha256`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Collapse of 5 MB when the stash fails (store full, Redis down) against the same collapse with
 * a working stash, A and B interleaved, median of the pairs' ratios.
 */
export async function benchUnsaved(): Promise<void> {
  console.log('\n## collapse when the stash fails: 5 MB to 2000 tokens (baseline: a working stash)');
  const tokenizer = getTokenizer('o200k');
  for (const input of [multiLineLog(5 * MB), oneLineJson(5 * MB)]) {
    const text = input.text;
    const run = (stash: () => Promise<unknown>) =>
      collapseText(text, { budget: 2000 }, { tokenizer, id: () => originalOf(text).id(), stash });
    const working: number[] = [];
    const failing: number[] = [];
    let out: Awaited<ReturnType<typeof run>> | undefined;
    for (let i = 0; i < 5; i++) {
      const store = new MemoryStore({ maxTotalBytes: 2 ** 40, maxFileBytes: 2 ** 30 });
      let t = performance.now();
      await run(() => store.putIfAbsent(stashKey(originalOf(text).id()), Buffer.from(text)));
      working.push(performance.now() - t);
      t = performance.now();
      out = await run(() => Promise.reject(new Error('store full')));
      failing.push(performance.now() - t);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const ratios = failing.map((f, i) => f / (working[i] as number));
    console.log(
      `${input.source}: working ${ms(med(working))}, stash failing ${ms(med(failing))} ` +
        `(${med(ratios).toFixed(2)}x, median of pairs; ${out?.action === 'acted' ? `${out.window} window, ${tokenizer.count(out.text)} tokens` : 'declined'})`,
    );
  }
}
