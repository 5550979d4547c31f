import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collapseText } from '../src/pipeline/stages/collapse/index.js';
import { FileStore } from '../src/store/file-store.js';
import { stashKey } from '../src/store/ids.js';
import { MemoryStore } from '../src/store/memory-store.js';
import type { Store } from '../src/store/store.js';
import { originalOf } from '../src/text/content-hash.js';
import { getTokenizer } from '../src/text/tokenizers/index.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { ms, ratio, timeAsync } from './measure.js';

/** collapse of 15 MB to 3,000 o200k tokens, against sha256 of the same string. */
export async function benchCollapse(): Promise<void> {
  console.log('\n## collapse: 15 MB to 3000 o200k tokens (median of 7; baseline: sha256 of the same string)');
  const tokenizer = getTokenizer('o200k');
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    for (const input of [oneLineJson(15 * MB), multiLineLog(15 * MB)]) {
      const text = input.text;
      const sha = await timeAsync(async () => createHash('sha256').update(text).digest(), 7);
      const run = async (store: Store) => {
        // The whole job as the pipeline does it (the runner's Original): encode and hash the
        // original once for its id, fit the window with the real marker, stash before returning.
        const original = originalOf(text);
        return collapseText(
          text,
          { resolvedMaxTokens: 3000 },
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
            { resolvedMaxTokens: 3000 },
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
      collapseText(text, { resolvedMaxTokens: 2000 }, { tokenizer, id: () => originalOf(text).id(), stash });
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

/**
 * A turn's cost against the length of its session: one new result in a session of 2,000 results
 * against one of 100, per result the session holds (a turn reads every earlier result; the
 * supersede stage once compared each with every later one, so a long session's turn grew with
 * the square of its length).
 */
export async function benchLongSession(): Promise<void> {
  console.log('\n## a turn in a long session: one new result in a session of 2,000 results vs 100');
  const { ConversationEngine } = await import('../src/pipeline/conversation.js');
  const { resolvePipeline } = await import('../src/pipeline/index.js');
  const result = (i: number) => ({
    id: `toolu_${i}`,
    tool: i % 2 ? 'Bash' : 'Read',
    input: i % 2 ? { command: `grep -rn symbol${i} src/` } : { file_path: `/repo/src/module${i}/index.ts` },
    content: `output of call ${i}\n`.repeat(12),
    position: 2 * i + 2,
  });
  const turnIn = async (length: number) => {
    const engine = new ConversationEngine({
      pipeline: resolvePipeline(),
      store: new MemoryStore(),
      session: `long${length}`,
    });
    const results = Array.from({ length: length - 1 }, (_, i) => result(i));
    await engine.turn({ results, messageCount: 2 * length });
    const times: number[] = [];
    for (let t = 0; t < 7; t++) {
      results.push(result(results.length));
      const start = performance.now();
      await engine.turn({ results, messageCount: 2 * results.length + 2 });
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[3] as number;
  };
  const short = await turnIn(100);
  const long = await turnIn(2000);
  console.log(
    `  a turn in a session of 100 results ${ms(short)}, of 2,000 ${ms(long)}; per result held: ${ratio(long / 2000, short / 100)} (linear: about 1x)`,
  );
}
