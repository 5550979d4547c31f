import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pruneSession } from '../src/session/prune-session.js';
import { Session } from '../src/session/session.js';
import { FileStore } from '../src/store/backends/file-store.js';
import { MB, multiLineLog } from './inputs.js';
import { interleaved, median, medianRatio, ms } from './measure.js';

/** Sizes like the corpus: median ~150 B, p90 ~5.5 KB, p99 ~27 KB, and a few of 1 MB. */
function sizes(n: number): number[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: n }, (_, i) => {
    if (i % 2500 === 1234) return 1024 * 1024;
    const u = random();
    // A log-normal-ish spread around 150 bytes.
    return Math.round(
      150 * Math.exp(2.2 * Math.sqrt(-2 * Math.log(Math.max(u, 1e-9))) * (random() < 0.5 ? -0.6 : 0.8)),
    );
  });
}

/** pruneSession over 10,000 events, against reading and JSON-parsing the same JSONL. */
export async function benchSession(): Promise<void> {
  console.log(
    '\n## pruneSession: 10,000 events sized like the corpus (baseline: reading + JSON-parsing the JSONL)',
  );
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    const source = multiLineLog(2 * MB).text;
    const lines: string[] = [];
    const all = sizes(10_000);
    all.forEach((size, seq) => {
      const data =
        seq % 2 === 0
          ? { role: 'assistant', content: [{ type: 'tool_use', id: `t${seq}`, name: 'Bash', input: {} }] }
          : {
              role: 'tool',
              toolCallId: `t${seq - 1}`,
              toolName: 'Bash',
              content: source.slice(seq % 1000, (seq % 1000) + size),
            };
      lines.push(JSON.stringify({ seq, op: { type: 'append' }, data }));
    });
    const text = `${lines.join('\n')}\n`;
    const sorted = [...all].sort((a, b) => a - b);
    const pruneMs: number[] = [];
    // Each round prunes a fresh copy of the log into a fresh store, between two reads of it.
    let parsed: unknown[] = [];
    let opened = 0;
    let result: Awaited<ReturnType<typeof pruneSession>> | undefined;
    // Copies written before timing starts: writing 8 MB is not part of what is measured.
    const copies = new Map<number, string>();
    for (let round = -2; round < 5; round++) {
      const path = join(root, `session-${round}.jsonl`);
      writeFileSync(path, text);
      copies.set(round, path);
    }
    const copy = (round: number) => copies.get(round) as string;
    const source0 = copy(-2);
    const runs = await interleaved(
      {
        parse: () => {
          parsed = readFileSync(source0, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l));
        },
        open: async (round) => {
          const session = await Session.open(copy(round));
          opened = session.surface().length;
          await session.close();
        },
        prune: async (round) => {
          const session = await Session.open(copy(round));
          const t = performance.now();
          result = await pruneSession(session, {
            store: new FileStore({ base: join(root, `tool-results-${round}`), pruneOnFirstSpill: false }),
          });
          pruneMs.push(performance.now() - t);
          await session.close();
        },
      },
      5,
    );
    const parseMs = median(runs.parse);
    // The prune round also opens its copy; only pruneSession itself is timed against the parse.
    const prunes = pruneMs.slice(-runs.parse.length);
    console.log(
      `  ${parsed.length} events (${opened} on the surface), ${(Buffer.byteLength(text) / MB).toFixed(1)} MB; result sizes median ${sorted[5000]} B, p99 ${sorted[9900]} B, max ${sorted.at(-1)} B`,
    );
    console.log(`  (interleaved, medians of ${runs.parse.length})`);
    console.log(`  read + JSON.parse           ${ms(parseMs).padStart(9)}  1.00x`);
    console.log(
      `  Session.open (validate)     ${ms(median(runs.open)).padStart(9)}  ${medianRatio(runs.open, runs.parse).toFixed(2)}x`,
    );
    console.log(
      `  pruneSession                ${ms(median(prunes)).padStart(9)}  ${medianRatio(prunes, runs.parse).toFixed(2)}x; ${Math.round(10_000 / (median(prunes) / 1000))} events/s; ${result?.pruned.length} replaced (one append and one flush for the pass; the stashes one batch), ${result?.saved} chars saved`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
