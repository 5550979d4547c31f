import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pruneSession } from '../src/session/prune-session.js';
import { Session } from '../src/session/session.js';
import { FileStore } from '../src/store/file-store.js';
import { MB, multiLineLog } from './inputs.js';
import { ms, ratio } from './measure.js';

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
    const path = join(root, 'session.jsonl');
    writeFileSync(path, text);
    let t = performance.now();
    const parsed = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const parseMs = performance.now() - t;
    t = performance.now();
    const session = await Session.open(path);
    const openMs = performance.now() - t;
    t = performance.now();
    const result = await pruneSession(session, {
      store: new FileStore({ base: join(root, 'tool-results'), pruneOnFirstSpill: false }),
    });
    const pruneMs = performance.now() - t;
    await session.close();
    console.log(
      `  ${parsed.length} events, ${(Buffer.byteLength(text) / MB).toFixed(1)} MB; result sizes median ${sorted[5000]} B, p99 ${sorted[9900]} B, max ${sorted.at(-1)} B`,
    );
    console.log(`  read + JSON.parse           ${ms(parseMs).padStart(9)}  1.00x`);
    console.log(`  Session.open (validate)     ${ms(openMs).padStart(9)}  ${ratio(openMs, parseMs)}`);
    console.log(
      `  pruneSession                ${ms(pruneMs).padStart(9)}  ${ratio(pruneMs, parseMs)}; ${Math.round(10_000 / (pruneMs / 1000))} events/s; ${result.pruned.length} replaced (one append and one flush for the pass; the stashes one batch), ${result.saved} chars saved`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
