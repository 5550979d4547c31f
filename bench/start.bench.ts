import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ms, ratio } from './measure.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');
// Reports the child's own CPU time and peak memory as it exits.
const REPORT_USAGE = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nUSAGE '+(u.userCPUTime+u.systemCPUTime)/1000+' '+u.maxRSS/1024+'\\n')})`;

type Usage = { cpuMs: number; rssMb: number };

function usageOf(args: string[]): Usage {
  const r = spawnSync(process.execPath, ['--import', REPORT_USAGE, ...args], { encoding: 'utf8' });
  const m = /USAGE ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  return { cpuMs: Number(m[1]), rssMb: Number(m[2]) };
}

/** Milliseconds from spawning `spillway mcp` to its answers to initialize and tools/list. */
export function mcpReady(dir: string, cli = CLI): Promise<number> {
  return new Promise((done, fail) => {
    const t = performance.now();
    const child = spawn(process.execPath, [cli, 'mcp', '--dir', dir], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buffered = '';
    let answers = 0;
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    child.on('error', fail);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        buffered = buffered.slice(nl + 1);
        answers++;
        if (answers === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else {
          done(performance.now() - t);
          child.kill();
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
  });
}

/** A loopback port free right now (the proxy is then started on it, so its port is known). */
function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/** Whether something accepts a TCP connection on the port now. */
const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      done(true);
    });
    socket.on('error', () => done(false));
  });

/**
 * Milliseconds from spawning `spillway proxy` to the port accepting connections (a client
 * started beside it connects), and to its "listening on" line (ready: the engine loaded).
 */
async function proxyStart(dir: string): Promise<{ listening: number; ready: number }> {
  const port = await freePort();
  const t = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'proxy', '--port', String(port), '--dir', dir, '--quiet', '--open-recall'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const ready = new Promise<number>((done, fail) => {
    let out = '';
    child.on('error', fail);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('listening on')) done(performance.now() - t);
    });
  });
  let listening = Number.NaN;
  for (let i = 0; i < 5000 && Number.isNaN(listening); i++) {
    if (await accepts(port)) listening = performance.now() - t;
    else await new Promise((r) => setTimeout(r, 2));
  }
  const readyMs = await ready;
  await new Promise((done) => {
    child.once('exit', done);
    child.kill();
  });
  return { listening, ready: readyMs };
}

/** Wall time of a bare `node -e 0`, spawned as the others are. */
function bareNode(): number {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * How fast the CLI starts, as a user's shell or an agent's MCP launcher sees it: `spillway
 * --version` against bare `node -e 0` (CPU time and peak memory, interleaved A B A B), and
 * `spillway mcp` from spawn to its tools/list answer, and `spillway proxy` from spawn to accepting
 * connections and to ready. Runs the built CLI, building it first
 * when dist/ is missing.
 */
export async function benchStart(): Promise<void> {
  console.log('\n## start: the built CLI (baseline: node -e 0)');
  if (!existsSync(CLI)) spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const cli: Usage[] = [];
  const bare: Usage[] = [];
  for (let i = 0; i < 10; i++) {
    cli.push(usageOf([CLI, '--version']));
    bare.push(usageOf(['-e', '0']));
  }
  const cpuRatios = cli.map((u, i) => u.cpuMs / (bare[i] as Usage).cpuMs);
  console.log(
    `spillway --version: ${ms(median(cli.map((u) => u.cpuMs)))} CPU, ${median(cli.map((u) => u.rssMb)).toFixed(0)} MB; ` +
      `node -e 0: ${ms(median(bare.map((u) => u.cpuMs)))} CPU, ${median(bare.map((u) => u.rssMb)).toFixed(0)} MB; ` +
      `CPU ratio ${median(cpuRatios).toFixed(2)}x (median of pairs)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    // Interleaved: mcp, node, proxy, node, ... so both ratios see the same machine load.
    const ready: number[] = [];
    const listening: number[] = [];
    const proxyReady: number[] = [];
    const bareWall: number[] = [];
    for (let i = 0; i < 7; i++) {
      ready.push(await mcpReady(dir));
      bareWall.push(bareNode());
      const proxy = await proxyStart(dir);
      listening.push(proxy.listening);
      proxyReady.push(proxy.ready);
      bareWall.push(bareNode());
    }
    console.log(
      `spillway mcp: initialize and tools/list answered ${ms(median(ready))} after spawn ` +
        `(${ratio(median(ready), median(bareWall))} of node -e 0's ${ms(median(bareWall))})`,
    );
    console.log(
      `spillway proxy: accepts connections ${ms(median(listening))} after spawn ` +
        `(${ratio(median(listening), median(bareWall))} of node -e 0's ${ms(median(bareWall))}); ` +
        `ready (engine loaded, "listening on" printed) at ${ms(median(proxyReady))} (${ratio(median(proxyReady), median(bareWall))})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
