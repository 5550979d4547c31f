import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';

const runs = (binary: string) => spawnSync(binary, ['--version'], { encoding: 'utf8' }).status === 0;

/** Whether a redis-server binary is on the PATH (.ci/run installs Debian's when missing). */
export const REDIS_SERVER = runs('redis-server');
/** Whether Valkey is (Debian 12 has it in bookworm-backports; .ci/run installs it from there). */
export const VALKEY_SERVER = runs('valkey-server') && runs('valkey-cli');
export const VALKEY_MISSING =
  'valkey-server and valkey-cli not found; install Debian\'s "valkey-server" and "valkey-tools" (bookworm-backports; .ci/run does) to run the Valkey tests';
export const REDIS_MISSING =
  'redis-server not found; install Debian\'s "redis-server" package (.ci/run does) to run the Redis tests';

/** A loopback port free now (0 asks the kernel for one); null when `port` is taken. */
export async function freePort(port = 0): Promise<number | null> {
  const server = createServer();
  const listening = once(server, 'listening').then(() => true);
  const failed = once(server, 'error').then(() => false);
  server.listen(port, '127.0.0.1');
  if (!(await Promise.race([listening, failed]))) return null;
  const got = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return got;
}

export async function pingable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1', () => {
      socket.write('PING\r\n');
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
    });
  });
}

export interface TestRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A redis-server (or `server`: valkey-server) of the test's own on a free loopback port (no
 * persistence), so a test may kill and restart it.
 */
export async function startRedis(options: { server?: string } = {}): Promise<TestRedis> {
  const server = options.server ?? 'redis-server';
  const port = (await freePort()) as number;
  const dir = mkdtempSync(`${tmpdir()}/sw-redis-`);
  let child: ChildProcess | undefined;
  const redis: TestRedis = {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async start() {
      child = spawn(
        server,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 200 && !(await pingable(port)); i++) await new Promise((r) => setTimeout(r, 25));
    },
    async kill() {
      if (!child) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      child = undefined;
    },
    /** Kills it for good and removes its folder (the benchmark runs outside the tests' temp root). */
    async stop() {
      await redis.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}
