import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { freePort, pingable } from './redis.js';

/** Whether redis-cli can build a cluster here (redis-server alone is not enough). */
export const REDIS_CLUSTER_TOOLS =
  spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0 &&
  spawnSync('redis-cli', ['--version'], { encoding: 'utf8' }).status === 0;
export const REDIS_CLUSTER_MISSING =
  'redis-server and redis-cli not found; install Debian\'s "redis-server" and "redis-tools" packages (.ci/run does) to run the Redis Cluster tests';

export interface TestCluster {
  /** `redis-cluster://127.0.0.1:P1,127.0.0.1:P2,...`, every node a seed. */
  url: string;
  ports: number[];
  /** The port of the master serving `slot`, as the cluster says now. */
  masterOf(slot: number): number;
  /** The ports of the replicas of the master at `port`. */
  replicasOf(port: number): number[];
  /** Kills one node (SIGKILL), as a crash would. */
  kill(port: number): Promise<void>;
  /** Waits until every slot is served (a replica promoted) and every replica has synced. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function cliOf(binary: string) {
  return (port: number, ...args: string[]): string =>
    spawnSync(binary, ['-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 }).stdout ?? '';
}

/**
 * A Redis Cluster of the test's own on loopback: `masters` masters with `replicas` replicas
 * each, no persistence, a 1 s node timeout so a killed master fails over in seconds. `server`
 * and `cli` name other binaries (valkey-server, valkey-cli).
 *
 * @example
 * const cluster = await startCluster({ masters: 3, replicas: 1 });
 * try { ... } finally { await cluster.stop(); }
 */
export async function startCluster(
  options: { masters?: number; replicas?: number; server?: string; cli?: string } = {},
): Promise<TestCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 1;
  const cliBinary = options.cli ?? 'redis-cli';
  const cli = cliOf(cliBinary);
  const dir = mkdtempSync(`${tmpdir()}/sw-cluster-`);
  const count = masters * (1 + replicas);
  const ports: number[] = [];
  const children = new Map<number, ChildProcess>();
  for (let i = 0; i < count; i++) {
    const port = (await freePort()) ?? 0;
    // A cluster bus port is the port + 10000: both must be free.
    if (port > 55_000 || ports.includes(port) || (await freePort(port + 10_000)) === null) {
      i--;
      continue;
    }
    ports.push(port);
    const nodeDir = `${dir}/${port}`;
    mkdirSync(nodeDir);
    const child = spawn(
      options.server ?? 'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `${nodeDir}/nodes.conf`,
        '--cluster-node-timeout',
        '1000',
        // A replica syncs at once (the default waits 5 s for others to join the transfer): one
        // that never synced cannot take over.
        '--repl-diskless-sync-delay',
        '0',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        nodeDir,
      ],
      { stdio: 'ignore' },
    );
    children.set(port, child);
  }
  for (const port of ports)
    for (let i = 0; i < 200 && !(await pingable(port)); i++) await new Promise((r) => setTimeout(r, 25));
  const create = spawnSync(
    cliBinary,
    [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const cluster: TestCluster = {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    masterOf(slot) {
      for (const port of ports) {
        if (!children.has(port)) continue;
        const line = cli(port, 'cluster', 'nodes')
          .split('\n')
          .find((l) => /\bmaster\b/.test(l) && !/\bfail\b/.test(l) && slotIn(l, slot));
        const m = line && /127\.0\.0\.1:(\d+)@/.exec(line);
        if (m) return Number(m[1]);
      }
      throw new Error(`no live master serves slot ${slot}`);
    },
    replicasOf(port) {
      const live = [...children.keys()];
      const lines = live.length ? cli(live[0] as number, 'cluster', 'nodes').split('\n') : [];
      const master = lines.find((l) => l.includes(`127.0.0.1:${port}@`))?.split(' ')[0];
      return lines
        .filter((l) => / (slave|replica) /.test(` ${l} `) && l.split(' ')[3] === master)
        .map((l) => Number(/127\.0\.0\.1:(\d+)@/.exec(l)?.[1]));
    },
    async kill(port) {
      const child = children.get(port);
      if (!child) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      children.delete(port);
    },
    async healthy(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      const alive = () => [...children.keys()];
      while (Date.now() < deadline) {
        const ok = alive().every((p) => {
          if (!/cluster_state:ok/.test(cli(p, 'cluster', 'info'))) return false;
          const replication = cli(p, 'info', 'replication');
          return !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
        });
        if (ok) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the cluster did not become healthy in ${timeoutMs} ms`);
    },
    async stop() {
      for (const port of [...children.keys()]) await cluster.kill(port);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (create.status !== 0) {
    await cluster.stop();
    throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  }
  await cluster.healthy();
  return cluster;
}

/** Whether a CLUSTER NODES line's slot ranges include `slot`. */
function slotIn(line: string, slot: number): boolean {
  return line
    .split(' ')
    .slice(8)
    .some((range) => {
      const [a, b] = range.split('-').map(Number);
      return a !== undefined && slot >= a && slot <= (b ?? a);
    });
}
