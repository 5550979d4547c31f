import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const entry = resolve(import.meta.dirname, '../cli.ts');

/**
 * `spillway proxy` in a process of its own on a free loopback port, as a fleet member runs:
 * stashing in `storeUrl` (or, without one, the file store under `env`'s SPILLWAY_HOME),
 * forwarding Anthropic and OpenAI requests to `upstream`. Resolves once it listens; kill its
 * child when done.
 *
 * @example
 * const a = await proxyProcess(redis.url, upstream.url, ['--open-recall']);
 */
export async function proxyProcess(
  storeUrl: string | undefined,
  upstream: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      entry,
      'proxy',
      '--port',
      '0',
      ...(storeUrl ? ['--store', storeUrl] : []),
      '--anthropic-upstream',
      upstream,
      '--openai-upstream',
      upstream,
      '--quiet',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env },
  );
  let out = '';
  child.stdout?.on('data', (c) => {
    out += c;
  });
  const deadline = Date.now() + 20_000;
  while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  if (!url) {
    child.kill('SIGKILL');
    throw new Error(`proxy did not start in 20 s: ${out}`);
  }
  return { url, child };
}
