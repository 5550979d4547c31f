import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadClients } from '../src/clients/registry.js';
import { buildLog } from '../src/test-support/build-log.js';
import { corpusFiles } from '../src/test-support/corpus.js';
import { corpusResultTexts } from '../src/test-support/fidelity.js';
import { programOutputs } from '../src/test-support/program-outputs.js';
import { multiLineLog } from './inputs.js';
import { median, medianRatio } from './measure.js';
import { mcpReady } from './start.bench.js';

type Root = typeof import('../src/index.js');
type Replay = typeof import('../src/replay/index.js');
type Stores = typeof import('../src/store/index.js');
type Store = import('../src/store/index.js').Store;
type Side = 'other' | 'this';
const THIS = resolve(import.meta.dirname, '..');
const REPORT_CPU = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nUSAGE '+(u.userCPUTime+u.systemCPUTime)/1000+'\\n')})`;

/** Milliseconds of CPU a node process with these arguments takes. */
function cpuOf(args: string[], input?: string, env?: NodeJS.ProcessEnv): number {
  const r = spawnSync(process.execPath, ['--import', REPORT_CPU, ...args], { input, env, encoding: 'utf8' });
  const m = /USAGE ([\d.]+)/.exec(r.stderr);
  if (!m) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  return Number(m[1]);
}

/** Both sides measured in turn (A B B A A B ...) after a warm-up; prints medians and the median ratio. */
async function ab(name: string, run: (side: Side) => number | Promise<number>, rounds = 9): Promise<void> {
  const t: Record<Side, number[]> = { other: [], this: [] };
  await run('other');
  await run('this');
  for (let i = 0; i < rounds; i++)
    for (const side of (i % 2 ? ['this', 'other'] : ['other', 'this']) as Side[])
      t[side].push(await run(side));
  console.log(
    `${name.padEnd(52)} other ${median(t.other).toFixed(1).padStart(7)} ms  this ${median(t.this).toFixed(1).padStart(7)} ms  ${medianRatio(t.this, t.other).toFixed(3)}x`,
  );
}

const timed = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};

async function starts(dirs: Record<Side, string>, home: string): Promise<void> {
  const env = { ...process.env, HOME: home, SPILLWAY_HOME: join(home, '.spillway') };
  const cli = (s: Side) => join(dirs[s], 'dist/cli.js');
  await ab('spillway --version (CPU)', (s) => cpuOf([cli(s), '--version']));
  await ab('spillway mcp: initialize and tools/list (wall)', (s) => mcpReady(home, cli(s)));
  for (const c of await loadClients())
    await ab(`spillway hook ${c.key}, small output (CPU)`, (s) =>
      cpuOf([cli(s), 'hook', c.key], JSON.stringify(c.probe), env),
    );
  for (const sub of ['index', 'integrations/ai-sdk', 'integrations/mcp-client'])
    await ab(`import dist/${sub}.js (CPU)`, (s) =>
      cpuOf(['-e', `await import(${JSON.stringify(join(dirs[s], `dist/${sub}.js`))})`]),
    );
}

async function work(roots: Record<Side, Root>): Promise<void> {
  const log = buildLog().text;
  const multi = multiLineLog(4 * 1024 * 1024).text;
  await ab('collapse a 650 KB build log at 2,000 tokens', (s) =>
    timed(() => roots[s].collapse(log, { tokens: 2000, store: new roots[s].MemoryStore() })),
  );
  await ab('collapse a 4 MiB log at 1,000 tokens', (s) =>
    timed(() => roots[s].collapse(multi, { tokens: 1000, store: new roots[s].MemoryStore() })),
  );
  const texts = corpusResultTexts(2000).slice(0, 120);
  await ab(`the engine: 40 turns over ${texts.length} results (balanced)`, async (s) => {
    const m = roots[s];
    const unbounded = { maxTotalBytes: 2 ** 40, maxSessionBytes: 2 ** 40 };
    // The engine config's former names (resolvePipeline, `pipeline:`): the other build may predate the new ones.
    const pipeline = m.resolvePipeline({ preset: 'balanced' });
    const engine = new m.ConversationEngine({
      pipeline,
      store: new m.MemoryStore(unbounded),
      session: 'bench',
    });
    const results: { id: string; tool: string; content: string; position: number }[] = [];
    return timed(async () => {
      for (let i = 0; i < 120; i++) {
        if (i < texts.length)
          results.push({
            id: `call_${i}`,
            tool: i % 4 ? 'Bash' : 'Read',
            content: texts[i] as string,
            position: i,
          });
        if (i % 3 === 2) await engine.turn({ results, messageCount: results.length * 2 + 1 });
      }
      await engine.flush();
    });
  });
  const stores = { other: new roots.other.MemoryStore(), this: new roots.this.MemoryStore() };
  const ids = {
    other: await roots.other.stash(stores.other, multi),
    this: await roots.this.stash(stores.this, multi),
  };
  await ab('expand: grep "error" over 4 MiB', (s) =>
    timed(() => roots[s].expand(stores[s], { id: ids[s], grep: 'error' })),
  );
}

/**
 * Each backend's writes and reads through either side's store layer: under its quotas, and into
 * a store that fills and stays full (room made for the writes by removing idle sessions).
 */
async function storeWork(stores: Record<Side, Stores>, root: string): Promise<void> {
  const body = Buffer.from(multiLineLog(4096).text.slice(0, 4096));
  const record = Buffer.alloc(300, 'r');
  let round = 0;
  const under = (n: number) => async (store: Store) => {
    for (let i = 0; i < n; i++) {
      await store.put({ dir: `s${i % 8}`, name: `c${i}` }, body);
      await store.putIfAbsent({ dir: 'pruned', name: `h${i % (n / 2)}` }, body);
      await store.append({ dir: `s${i % 8}`, name: 'fz_log' }, record);
      await store.get({ dir: `s${i % 8}`, name: `c${i}` }, { start: 0, end: 1024 });
    }
  };
  // 1 MiB of room, sessions of 8 entries of 4 KiB: past the 32nd session, the store is full and
  // writes go on, so room is made for them (on both sides: all sessions but the one written idle).
  const full = (n: number) => async (store: Store) => {
    for (let i = 0; i < n; i++) await store.put({ dir: `f${Math.floor(i / 8)}`, name: `c${i % 8}` }, body);
  };
  type Open = (s: Side, limits: { maxTotalBytes?: number }) => Promise<Store>;
  const cases: [string, Open, number][] = [
    ['memory', async (s, limits) => new stores[s].MemoryStore(limits, Date.now, 0), 20_000],
    [
      'file',
      async (s, limits) =>
        new stores[s].FileStore({
          base: join(root, `${s}-${round++}`),
          pruneOnFirstSpill: false,
          activeAgeMs: 0,
          ...limits,
        }),
      150,
    ],
  ];
  let redis: import('../src/test-support/redis.js').TestRedis | undefined;
  if (spawnSync('redis-server', ['--version']).status === 0) {
    const { startRedis } = await import('../src/test-support/redis.js');
    const server = await startRedis();
    redis = server;
    cases.push([
      'redis',
      (s, limits) =>
        stores[s].RedisStore.connect(server.url, { prefix: `b${round++}`, activeAgeMs: 0, ...limits }),
      600,
    ]);
  } else console.log('  redis: skipped (no redis-server on this machine)');
  try {
    for (const [name, open, n] of cases)
      for (const [what, work, limits] of [
        [`${n} x put, putIfAbsent, append, ranged get`, under(n), {}],
        [
          `${n / 2 + 256} writes, the last ${n / 2} into a full store`,
          full(n / 2 + 256),
          { maxTotalBytes: 1024 * 1024 },
        ],
      ] as const)
        await ab(
          `${name}: ${what}`,
          async (s) => {
            const store = await open(s, limits);
            try {
              return await timed(() => work(store));
            } finally {
              await store.close?.();
            }
          },
          // Memory's work takes milliseconds: more rounds, to see past the collector and the JIT.
          name === 'memory' ? 21 : 7,
        );
  } finally {
    await redis?.stop();
  }
}

/** Every corpus result and real program's output collapsed by both, and every transcript replayed. */
async function identity(roots: Record<Side, Root>, replays: Record<Side, Replay>): Promise<void> {
  const texts = [...corpusResultTexts(0), ...programOutputs().map((p) => p.text)];
  let same = 0;
  for (const tokens of [500, 1000, 2000])
    for (const text of texts) {
      const [a, b] = await Promise.all(
        (['other', 'this'] as Side[]).map((s) =>
          roots[s].collapse(text, { tokens, store: new roots[s].MemoryStore() }),
        ),
      );
      if (JSON.stringify(a) === JSON.stringify(b)) same++;
    }
  console.log(`collapse byte-identical: ${same} of ${texts.length * 3} (text, budget) pairs`);
  let alike = 0;
  let pairs = 0;
  for (const file of corpusFiles())
    for (const preset of ['balanced', 'aggressive'] as const) {
      const out: string[] = [];
      for (const s of ['other', 'this'] as Side[]) {
        const text = readFileSync(file, 'utf8');
        const { conversations } = replays[s].readTranscript(text, file);
        // The former names, as above: both builds know them.
        const pipeline = roots[s].resolvePipeline({ preset });
        const all = [];
        for (const c of conversations) all.push(await replays[s].replayConversation(c, { pipeline }));
        out.push(JSON.stringify(all));
      }
      pairs++;
      if (out[0] === out[1]) alike++;
    }
  console.log(
    `replay identical (every figure and every result's text): ${alike} of ${pairs} (transcript, preset) pairs`,
  );
}

/**
 * This checkout against another (`SPILLWAY_COMPARE_WITH`: a checkout of an earlier commit with
 * node_modules and dist/ built): start paths, the engine's work, and whether collapse and replay
 * give the same bytes. What a restructure must leave as it was, measured interleaved.
 *
 * @example
 * // git worktree add /tmp/before HEAD~5 && (cd /tmp/before && npm ci && npm run build)
 * // SPILLWAY_COMPARE_WITH=/tmp/before npm run bench -- compare
 * // SPILLWAY_COMPARE_PARTS=starts SPILLWAY_COMPARE_WITH=/tmp/before npm run bench -- compare
 */
export async function benchCompare(): Promise<void> {
  console.log('\n## compare: this checkout against SPILLWAY_COMPARE_WITH, interleaved');
  const other = process.env.SPILLWAY_COMPARE_WITH;
  if (!other || !existsSync(join(other, 'dist/cli.js')) || !existsSync(join(other, 'src/index.ts'))) {
    console.log('  skipped: set SPILLWAY_COMPARE_WITH to another checkout with dist/ built');
    return;
  }
  if (!existsSync(join(THIS, 'dist/cli.js')))
    spawnSync('npm', ['run', 'build', '--silent'], { cwd: THIS, stdio: 'inherit' });
  const dirs = { other: resolve(other), this: THIS };
  const roots = {
    other: (await import(join(dirs.other, 'src/index.ts'))) as Root,
    this: (await import(join(THIS, 'src/index.ts'))) as Root,
  };
  const replays = {
    other: (await import(join(dirs.other, 'src/replay/index.ts'))) as Replay,
    this: (await import(join(THIS, 'src/replay/index.ts'))) as Replay,
  };
  const stores = {
    other: (await import(join(dirs.other, 'src/store/index.ts'))) as Stores,
    this: (await import(join(THIS, 'src/store/index.ts'))) as Stores,
  };
  // SPILLWAY_COMPARE_PARTS=starts,work,stores,identity (the default: all four) runs some of them.
  const parts = new Set((process.env.SPILLWAY_COMPARE_PARTS ?? 'starts,work,stores,identity').split(','));
  const home = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    if (parts.has('starts')) await starts(dirs, home);
    if (parts.has('work')) await work(roots);
    if (parts.has('stores')) await storeWork(stores, home);
    if (parts.has('identity')) await identity(roots, replays);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
