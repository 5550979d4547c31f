import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { createLocalUser, LOCAL_USER_MISSING, type LocalUser } from '../test-support/local-user.js';
import { proxyProcess } from '../test-support/proxy-process.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { type RunningProxy, startProxy } from './server.js';

// Another local user can reach a loopback port. What they may do with this user's proxy: read
// nothing (every route that reads state needs the user's token) and send no model request
// through it (refused before its body is read: never stashed into this user's store, never
// spending its quota).

const NO_PROC = existsSync('/proc/net/tcp')
  ? undefined
  : 'no /proc/net/tcp here (not Linux): other local users are told apart only on Linux';
const uid = process.getuid?.() ?? -1;
const TOKEN = 'a'.repeat(64);

// What a client does, as a script any user can run: a Messages request with a 150 KB tool
// result, /stats and /metrics; prints each status and body.
const CLIENT = `(async () => {
  const [url, token] = process.argv.slice(1);
  const log = Array.from({ length: 4000 }, (_, i) => 'step ' + i + ': compiled module_' + i + '.c').join('\\n');
  const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, system: 'other-users ' + Math.random(),
    messages: [{ role: 'user', content: 'build' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: log }] }] });
  const headers = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-theirs', ...(token ? { 'x-spillway-token': token } : {}) };
  const out = {};
  for (const [name, path, init] of [['messages', '/v1/messages', { method: 'POST', headers, body }],
    ['stats', '/stats', { headers }], ['metrics', '/metrics', { headers }]]) {
    const res = await fetch(url + path, init);
    out[name] = { status: res.status, text: await res.text() };
  }
  console.log(JSON.stringify(out));
})();`;
type Answers = Record<'messages' | 'stats' | 'metrics', { status: number; text: string }>;
const parse = (stdout: string) => JSON.parse(stdout) as Answers;

let upstream: TestUpstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await upstream?.close();
});

async function withProxy(
  options: { host: string; ownerUid: number },
  test: (proxy: RunningProxy, store: MemoryStore, log: Record<string, unknown>[]) => Promise<void>,
): Promise<void> {
  const store = new MemoryStore();
  const log: Record<string, unknown>[] = [];
  const proxy = await startProxy({
    config: resolveEngineConfig(),
    store,
    port: 0,
    upstreams: { anthropic: upstream.url },
    recallToken: { token: TOKEN, file: '/home/me/.spillway/token' },
    log: (line) => log.push(line),
    ...options,
  });
  try {
    await test(proxy, store, log);
  } finally {
    await proxy.close();
  }
}

/** Asserts a stranger got nothing: 403s that say why, nothing upstream, nothing stashed or counted. */
async function expectRefused(answers: Answers, proxy: RunningProxy, store: MemoryStore, seenBefore: number) {
  for (const name of ['messages', 'stats', 'metrics'] as const) {
    expect(answers[name].status, name).toBe(403);
    expect(answers[name].text, name).toMatch(
      /another local user \(uid \d+\); spillway answers only the user who started it/,
    );
  }
  // In the shape the client's SDK reads for its API.
  expect(JSON.parse(answers.messages.text)).toMatchObject({
    type: 'error',
    error: { type: 'permission_error' },
  });
  expect(upstream.seen.length).toBe(seenBefore);
  expect(await store.list()).toEqual([]);
  expect(await store.usedBytes?.()).toBe(0);
  expect(proxy.stats.requests).toBe(0);
}

const runNode = promisify(execFile);

describe('another local user', () => {
  it.skipIf(NO_PROC)(
    `a connection whose uid is not the proxy's gets 403 everywhere but /healthz; the user's token lets it in${NO_PROC ? ` (skipped: ${NO_PROC})` : ''}`,
    async () => {
      // This process stands for the other user: the proxy is told it belongs to another uid.
      await withProxy({ host: '127.0.0.1', ownerUid: uid + 1 }, async (proxy, store, log) => {
        const before = upstream.seen.length;
        const { stdout } = await runNode(process.execPath, ['-e', CLIENT, proxy.url]);
        await expectRefused(parse(stdout), proxy, store, before);
        // One log line a refusal, saying why.
        expect(log.map(({ path, status }) => `${path} ${status}`)).toEqual([
          '/v1/messages 403',
          '/stats 403',
          '/metrics 403',
        ]);
        expect(log[0]?.refused).toMatch(/another local user \(uid \d+\)/);
        expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
        const withToken = parse((await runNode(process.execPath, ['-e', CLIENT, proxy.url, TOKEN])).stdout);
        expect(withToken.messages.status).toBe(200);
        expect(withToken.stats.status).toBe(200);
      });
    },
  );

  it("the proxy's own user: model requests as before, state only with the token", async () => {
    await withProxy({ host: '127.0.0.1', ownerUid: uid }, async (proxy, store) => {
      const mine = parse((await runNode(process.execPath, ['-e', CLIENT, proxy.url])).stdout);
      expect(mine.messages.status).toBe(200);
      expect(await store.usedBytes?.()).toBeGreaterThan(100_000);
      expect(mine.stats.status).toBe(401);
      expect(mine.metrics.status).toBe(401);
      expect(JSON.parse(mine.stats.text).error.message).toContain(
        'your recall token (/home/me/.spillway/token)',
      );
      const withToken = parse((await runNode(process.execPath, ['-e', CLIENT, proxy.url, TOKEN])).stdout);
      expect(withToken.stats.status).toBe(200);
      expect(JSON.parse(withToken.stats.text).requests).toBe(2);
      expect(withToken.metrics.text).toMatch(/^spillway_requests_total\{api="anthropic"\} 2$/m);
    });
  });

  describe.skipIf(LOCAL_USER_MISSING || NO_PROC)(
    `a real second user on this machine${LOCAL_USER_MISSING || NO_PROC ? ` (skipped: ${LOCAL_USER_MISSING ?? NO_PROC})` : ''}`,
    () => {
      let other: LocalUser;
      beforeAll(() => {
        other = createLocalUser('swproxy');
      });
      afterAll(() => {
        other?.remove();
      });

      it('is refused over IPv4 and IPv6 loopback, nothing stashed; the same requests as the owner still work', async () => {
        for (const host of ['127.0.0.1', '::1']) {
          await withProxy({ host, ownerUid: uid }, async (proxy, store) => {
            const before = upstream.seen.length;
            const theirs = await other.run(other.node(), ['-e', CLIENT, proxy.url]);
            expect(theirs.code, theirs.stderr).toBe(0);
            const answers = parse(theirs.stdout);
            expect(answers.messages.text).toContain(`(uid ${other.uid})`);
            await expectRefused(answers, proxy, store, before);
            const mine = parse((await runNode(process.execPath, ['-e', CLIENT, proxy.url, TOKEN])).stdout);
            expect(mine.messages.status, host).toBe(200);
            expect(mine.stats.status, host).toBe(200);
            expect(upstream.seen.length).toBe(before + 1);
            expect(await store.usedBytes?.()).toBeGreaterThan(100_000);
          });
        }
      });

      it('is refused by `spillway proxy` as a user starts it (no flags), which still serves its user', async () => {
        const home = mkdtempSync(join(tmpdir(), 'sw-other-users-'));
        const { url, child } = await proxyProcess(undefined, upstream.url, [], {
          ...process.env,
          SPILLWAY_HOME: home,
          SPILLWAY_TOKEN: '',
        });
        try {
          const before = upstream.seen.length;
          const theirs = parse((await other.run(other.node(), ['-e', CLIENT, url])).stdout);
          for (const name of ['messages', 'stats', 'metrics'] as const)
            expect(theirs[name].status, name).toBe(403);
          expect(upstream.seen.length).toBe(before);
          expect(readdirSync(home).filter((name) => name !== 'token')).toEqual([]);
          const token = readFileSync(join(home, 'token'), 'utf8').trim();
          const mine = parse((await runNode(process.execPath, ['-e', CLIENT, url, token])).stdout);
          expect(mine.messages.status).toBe(200);
          expect(JSON.parse(mine.stats.text).requests).toBe(1);
          expect(readdirSync(home)).toContain('tool-results');
        } finally {
          const exited = child.exitCode === null ? once(child, 'exit') : undefined;
          child.kill('SIGTERM');
          await exited;
        }
      });
    },
  );
});
