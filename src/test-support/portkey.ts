import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { pinnedBin } from './client-install.js';
import { freePort } from './redis.js';

/** The open-source Portkey gateway, running on loopback. */
export interface RunningPortkey {
  url: string;
  stop(): Promise<void>;
}

/** The pinned Portkey gateway's executable, or why it is missing (the test then skips with that). */
export const PORTKEY = pinnedBin('@portkey-ai/gateway');

/**
 * Starts the pinned Portkey gateway (`@portkey-ai/gateway`, its Node server) on a free loopback
 * port, headless (no log UI), and resolves once it says it is ready.
 *
 * @example
 * const portkey = await startPortkey();
 * try { await fetch(`${portkey.url}/v1/chat/completions`, ...) } finally { await portkey.stop(); }
 */
export async function startPortkey(): Promise<RunningPortkey> {
  if ('missing' in PORTKEY) throw new Error(PORTKEY.missing);
  const port = (await freePort()) as number;
  const child: ChildProcess = spawn(process.execPath, [PORTKEY.path, `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'test' },
  });
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  child.stderr?.on('data', (c) => {
    out += c;
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 30_000;
  while (!out.includes('Ready for connections') && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 50));
  if (!out.includes('Ready for connections')) {
    await stop();
    throw new Error(`the Portkey gateway did not start: ${out.slice(-500)}`);
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}
