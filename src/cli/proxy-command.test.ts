import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const entry = resolve(import.meta.dirname, '../cli.ts');

describe('spillway proxy (the command)', () => {
  it('prints where it listens and how to set up each client, serves, and stops on SIGTERM', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sw-cli-proxy-'));
    const child = spawn(process.execPath, ['--import', 'tsx', entry, 'proxy', '--port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SPILLWAY_HOME: home, SPILLWAY_TOKEN: '' },
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 20_000;
    while (!out.includes('OPENAI_BASE_URL') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] as string;
    expect(url).toBeDefined();
    expect(out).toContain(` setup claude --proxy ${url} `);
    expect(out).toContain(`OPENAI_BASE_URL=${url}/v1 `);
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ ok: true });
    // Recall is this user's own: /expand and /mcp need the token only they can read.
    const tokenFile = join(home, 'token');
    expect(out).toContain(
      `/stats, /metrics and recall over HTTP (/expand, /mcp) need x-spillway-token: $(cat ${tokenFile})`,
    );
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect((await fetch(`${url}/expand?id=nothing`)).status).toBe(401);
    expect(
      (await fetch(`${url}/expand?id=nothing`, { headers: { 'x-spillway-token': 'guess' } })).status,
    ).toBe(401);
    expect((await fetch(`${url}/expand?id=nothing`, { headers: { 'x-spillway-token': token } })).status).toBe(
      404,
    );
    expect((await fetch(`${url}/stats`)).status).toBe(401);
    expect((await fetch(`${url}/stats`, { headers: { 'x-spillway-token': token } })).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('refuses to bind beyond loopback without a token, and rejects a bad config file', () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', entry, 'proxy', ...args], {
        encoding: 'utf8',
        env: { ...process.env, SPILLWAY_TOKEN: '' },
      });
    const open = run(['--host', '0.0.0.0', '--port', '0']);
    expect(open.status).toBe(1);
    expect(open.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);
    const dir = mkdtempSync(join(tmpdir(), 'sw-cli-proxy-'));
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ stages: [{ name: 'collapse', maxTokns: 3 }] }));
    const bad = run(['--config', config, '--port', '0']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/bad\.json: stages\[0\] \(collapse\): unknown key "maxTokns"/);
    // A bad ext_proc port is refused before anything listens (before: the proxy printed its
    // banner, then the error, and kept running). spawnSync's timeout turns a hang into a failure.
    const extProc = spawnSync(
      process.execPath,
      ['--import', 'tsx', entry, 'proxy', '--port', '0', '--ext-proc-port', '70000'],
      {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, SPILLWAY_TOKEN: '', SPILLWAY_HOME: dir },
      },
    );
    expect(extProc.status).toBe(2);
    expect(extProc.stderr).toMatch(/--ext-proc-port must be 0-65535, got 70000/);
    expect(extProc.stdout).not.toContain('listening');
  });
});
