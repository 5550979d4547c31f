import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, ms } from './measure.js';
import { benchPortkeyHop } from './portkey-hop.bench.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');
const FIXTURE = ['--import', 'tsx', join(ROOT, 'src/test-support/mcp-fixture-server.ts')];

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', cwd: ROOT }),
  );
  return client;
}

async function time(call: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await call();
  return performance.now() - t;
}

/**
 * What `spillway gateway` adds to an MCP call, measured interleaved (direct, gateway, direct,
 * ...) against the same fixture server: per small call (echo of a short text) and per 2 MB
 * result (echo of a 2 MB log, which the gateway collapses and stashes). The built CLI. Then
 * the AI gateways' hop: Portkey with and without spillway's webhook.
 */
export async function benchGateway(): Promise<void> {
  console.log('\n## gateway: added time per MCP call (direct and through spillway gateway, interleaved)');
  if (!existsSync(CLI)) spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  const direct = await connect(FIXTURE);
  const gated = await connect([CLI, 'gateway', '--dir', dir, '--', process.execPath, ...FIXTURE]);
  try {
    const big = Array.from({ length: 54_000 }, (_, i) =>
      i === 27_000 ? 'FATAL: ledger out of balance' : `[${i}] settled order ${i} in ${i % 97} ms`,
    ).join('\n');
    for (const [label, message, rounds] of [
      ['small call (echo "ok")', 'ok', 300],
      [`${(Buffer.byteLength(big) / 1e6).toFixed(1)} MB result`, big, 15],
    ] as const) {
      const a: number[] = [];
      const b: number[] = [];
      const diffs: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const x = await time(() => direct.callTool({ name: 'echo', arguments: { message } }));
        const y = await time(() => gated.callTool({ name: 'echo', arguments: { message } }));
        a.push(x);
        b.push(y);
        diffs.push(y - x);
      }
      console.log(
        `${label}: direct p50 ${ms(median(a))}, through the gateway p50 ${ms(median(b))}; added p50 ${ms(median(diffs))} (median of ${rounds} interleaved pairs)`,
      );
    }
  } finally {
    await direct.close();
    await gated.close();
    rmSync(dir, { recursive: true, force: true });
  }
  await benchPortkeyHop();
}
