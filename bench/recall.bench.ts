import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileStore } from '../src/store/backends/file-store.js';
import { stashKey } from '../src/store/ids.js';
import { expand } from '../src/store/recall/expand.js';
import { stash } from '../src/store/stash.js';
import { getTokenizer } from '../src/text/tokenizers/index.js';
import { MB, multiLineLog } from './inputs.js';
import { ms, ratio } from './measure.js';

const NEEDLE = 'FATAL payment-service: card declined for order 7731 (gateway timeout)';

/**
 * Finding the needle in a 15 MB original: `spillway_expand` with grep against `grep -n` on the
 * same stored file (A and B interleaved, medians), and the tokens a model reads to find it by
 * grep against paging from the start.
 */
export async function benchRecall(): Promise<void> {
  console.log('\n## recall: a needle in a 15 MB original (baseline: grep -n on the stored file)');
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    const lines = multiLineLog(15 * MB).text.split('\n');
    lines.splice(Math.floor(lines.length * 0.7), 0, NEEDLE);
    const original = lines.join('\n');
    const store = new FileStore({ base: join(root, 'tool-results'), pruneOnFirstSpill: false });
    const id = await stash(store, original);
    const path = store.pathOf(stashKey(id));
    const grep = spawnSync('grep', ['--version']).status === 0;
    const spillwayMs: number[] = [];
    const grepMs: number[] = [];
    let found = '';
    for (let i = 0; i < 5; i++) {
      let t = performance.now();
      found = await expand(store, { id, grep: 'FATAL payment-service', context: 2 });
      spillwayMs.push(performance.now() - t);
      if (grep) {
        t = performance.now();
        spawnSync('grep', ['-n', '-C', '2', 'FATAL payment-service', path]);
        grepMs.push(performance.now() - t);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const tokenizer = getTokenizer('o200k');
    console.log(
      `  ${(Buffer.byteLength(original) / MB).toFixed(1)} MB, ${lines.length} lines, needle at line ${lines.indexOf(NEEDLE) + 1}`,
    );
    if (grep) console.log(`  grep -n (a process)        ${ms(median(grepMs)).padStart(9)}  1.00x`);
    else console.log('  grep -n: not on this machine, no baseline');
    console.log(
      `  spillway_expand grep       ${ms(median(spillwayMs)).padStart(9)}  ${grep ? ratio(median(spillwayMs), median(grepMs)) : ''}`,
    );
    // Tokens a model reads before it sees the needle: one grep, or pages from the start.
    let pagedTokens = 0;
    let pages = 0;
    for (let offset = 0; ; pages++) {
      const page = await expand(store, { id, offset, maxTokens: 32_000 });
      pagedTokens += tokenizer.count(page);
      if (page.includes(NEEDLE)) break;
      const next = /\[bytes \d+-(\d+) of/.exec(page.slice(page.lastIndexOf('\n[bytes ')));
      offset = Number(next?.[1]);
    }
    console.log(
      `  tokens to find it: grep ${tokenizer.count(found)}, paging ${pagedTokens} (${pages + 1} pages of 32,000), ${Math.round(pagedTokens / tokenizer.count(found))}x more`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The longest pause of the event loop while `work` runs, sampled by a 5 ms timer. */
async function longestPause(work: () => Promise<unknown>): Promise<{ ms: number; pauseMs: number }> {
  let last = performance.now();
  let pause = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    pause = Math.max(pause, now - last);
    last = now;
  }, 5);
  const t = performance.now();
  await work();
  const took = performance.now() - t;
  clearInterval(timer);
  return { ms: took, pauseMs: Math.max(pause, performance.now() - last) };
}

/**
 * A grep over one line of megabytes (a minified bundle, a one-line JSON answer): its time, the
 * longest the event loop waited meanwhile (what /healthz and every other request wait), and the
 * growth of the process's peak RSS. Patterns from the hardening report: `a+c`, and `(a+)+$`.
 */
export async function benchRecallLongLine(): Promise<void> {
  console.log(
    '\n## recall-long-line: grep over one line of 2 MiB and 50 MB (event-loop pause, peak RSS growth)',
  );
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    const store = new FileStore({ base: join(root, 'tool-results'), pruneOnFirstSpill: false });
    for (const [size, grep] of [
      [2 * MB, 'a+c'],
      [2 * MB, 'error.*99ms"}]'],
      [50 * MB, '(a+)+$'],
    ] as const) {
      const line = 'ab'.repeat(size / 2);
      const id = await stash(store, line);
      const rssBefore = process.resourceUsage().maxRSS / 1024;
      const r = await longestPause(() => expand(store, { id, grep }));
      const rssAfter = process.resourceUsage().maxRSS / 1024;
      console.log(
        `${size / MB} MB line, grep ${JSON.stringify(grep)}: ${ms(r.ms)}, longest event-loop pause ${ms(r.pauseMs)}, peak RSS +${(rssAfter - rssBefore).toFixed(0)} MB`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const CLI = join(resolve(import.meta.dirname, '..'), 'dist/cli.js');

/**
 * The first greps of a proxy just started (the built CLI, in its own process), over a 2 MiB
 * one-line original of numbers: the longest a /healthz polled every 5 ms waited meanwhile. Before
 * the tokenizers' tables loaded at start, the first grep stalled it about 300 ms.
 */
export async function benchRecallFirstGrep(): Promise<void> {
  console.log('\n## recall-first-grep: /healthz while a proxy just started greps a 2 MiB line');
  const home = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  const numbers: string[] = [];
  for (let i = 0, n = 0; n < 2 * MB; i++) {
    numbers.push(String((i * 7919) % 1e9));
    n += (numbers.at(-1)?.length ?? 0) + 1;
  }
  const id = await stash(new FileStore({ base: join(home, 'tool-results') }), `[${numbers.join(',')}]`);
  const proxy = spawn(process.execPath, [CLI, 'proxy', '--port', '0', '--open-recall', '--quiet'], {
    env: { ...process.env, SPILLWAY_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [first] = (await once(proxy.stdout, 'data')) as [Buffer];
    const url = /listening on (http:\/\/\S+)/.exec(first.toString())?.[1];
    if (!url) throw new Error(`the proxy did not say where it listens: ${first.toString()}`);
    for (let round = 1; round <= 3; round++) {
      let done = false;
      let worst = 0;
      const poll = (async () => {
        while (!done) {
          const t = performance.now();
          await (await fetch(`${url}/healthz`)).arrayBuffer();
          worst = Math.max(worst, performance.now() - t);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const t = performance.now();
      await (await fetch(`${url}/expand?id=${id}&grep=${encodeURIComponent('\\d{10}')}`)).text();
      const took = performance.now() - t;
      done = true;
      await poll;
      console.log(`grep ${round} after start: ${ms(took)}, longest /healthz ${ms(worst)}`);
    }
  } finally {
    proxy.kill();
    rmSync(home, { recursive: true, force: true });
  }
}
