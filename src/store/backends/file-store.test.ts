import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultBase, withLock } from '../../home/index.js';
import { byteStoreContract } from '../../test-support/byte-store-contract.js';
import { storeContract } from '../../test-support/store-contract.js';
import { FileBytes } from './file-bytes.js';
import { FileStore } from './file-store.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'spillway-store-'));
const mode = (p: string) => statSync(p).mode & 0o777;

byteStoreContract('FileBytes', async () => new FileBytes(join(tmp(), 'tool-results')));
storeContract(
  'FileStore',
  async (limits) => new FileStore({ base: join(tmp(), 'tool-results'), pruneOnFirstSpill: false, ...limits }),
);

describe('FileStore', () => {
  it('lays out {base}/{session}/{call}.txt and {base}/pruned/{id}.txt, private', async () => {
    const base = join(tmp(), 'tool-results');
    const store = new FileStore({ base, pruneOnFirstSpill: false });
    const put = await store.put({ dir: 'sess', name: 'call' }, Buffer.from('hi'));
    expect(put.path).toBe(join(base, 'sess', 'call.txt'));
    expect(readFileSync(join(base, 'sess', 'call.txt'), 'utf8')).toBe('hi');
    await store.put({ dir: 'pruned', name: 'abc' }, Buffer.from('st'));
    expect(existsSync(join(base, 'pruned', 'abc.txt'))).toBe(true);
    expect(mode(base)).toBe(0o700);
    expect(mode(join(base, 'sess'))).toBe(0o700);
    expect(mode(join(base, 'sess', 'call.txt'))).toBe(0o600);
    // Nothing but the bodies is left behind (no temp files).
    expect(readdirSync(join(base, 'sess'))).toEqual(['call.txt']);
  });

  it('tightens loose permissions it finds', async () => {
    const base = join(tmp(), 'tool-results');
    mkdirSync(join(base, 'sess'), { recursive: true, mode: 0o755 });
    chmodSync(base, 0o755);
    chmodSync(join(base, 'sess'), 0o777);
    writeFileSync(join(base, 'sess', 'old.txt'), 'old', { mode: 0o644 });
    const store = new FileStore({ base, pruneOnFirstSpill: false });
    await store.put({ dir: 'sess', name: 'new' }, Buffer.from('new'));
    expect(mode(base)).toBe(0o700);
    expect(mode(join(base, 'sess'))).toBe(0o700);
    await store.get({ dir: 'sess', name: 'old' });
    expect(mode(join(base, 'sess', 'old.txt'))).toBe(0o600);
  });

  it('never follows a symbolic link inside the base', async () => {
    const root = tmp();
    const base = join(root, 'tool-results');
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(base, { recursive: true });
    symlinkSync(outside, join(base, 'evil'));
    mkdirSync(join(base, 'sess'));
    symlinkSync(join(outside, 'secret.txt'), join(base, 'sess', 'link.txt'));
    const store = new FileStore({ base, pruneOnFirstSpill: false });
    await expect(store.put({ dir: 'evil', name: 'c' }, Buffer.from('x'))).rejects.toThrow(
      /refusing to follow the symbolic link/,
    );
    await expect(store.get({ dir: 'evil', name: 'secret' })).rejects.toThrow(
      /refusing to follow the symbolic link/,
    );
    await expect(store.get({ dir: 'sess', name: 'link' })).rejects.toThrow(
      /refusing to follow the symbolic link/,
    );
    expect(existsSync(join(outside, 'c.txt'))).toBe(false);
    // A put over a link replaces the link itself, never writes through it.
    await store.put({ dir: 'sess', name: 'link' }, Buffer.from('mine'));
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(lstatSync(join(base, 'sess', 'link.txt')).isFile()).toBe(true);
  });

  it('appends to a private log, never through a link, and again after its directory was pruned', async () => {
    const root = tmp();
    const base = join(root, 'tool-results');
    const store = new FileStore({ base, pruneOnFirstSpill: false });
    const log = { dir: 'sess', name: 'fz_log' };
    await store.append(log, Buffer.from('\none'));
    await store.append(log, Buffer.from('\ntwo'));
    expect(readFileSync(join(base, 'sess', 'fz_log.txt'), 'utf8')).toBe('\none\ntwo');
    expect(mode(join(base, 'sess'))).toBe(0o700);
    expect(mode(join(base, 'sess', 'fz_log.txt'))).toBe(0o600);
    // Pruned by another process: the next append makes the directory again.
    rmSync(join(base, 'sess'), { recursive: true });
    await store.append(log, Buffer.from('\nthree'));
    expect(readFileSync(join(base, 'sess', 'fz_log.txt'), 'utf8')).toBe('\nthree');
    // A link in place of the log, or of a session directory, is refused.
    writeFileSync(join(root, 'target.txt'), 'keep');
    symlinkSync(join(root, 'target.txt'), join(base, 'sess', 'other.txt'));
    await expect(store.append({ dir: 'sess', name: 'other' }, Buffer.from('x'))).rejects.toThrow(
      /refusing to follow the symbolic link/,
    );
    symlinkSync(root, join(base, 'evil'));
    await expect(store.append({ dir: 'evil', name: 'fz_log' }, Buffer.from('x'))).rejects.toThrow(
      /refusing to follow the symbolic link/,
    );
    expect(readFileSync(join(root, 'target.txt'), 'utf8')).toBe('keep');
    expect(existsSync(join(root, 'fz_log.txt'))).toBe(false);
  });

  it('uses $SPILLWAY_HOME/tool-results, else ~/.spillway/tool-results', () => {
    expect(defaultBase({ SPILLWAY_HOME: '/srv/sw' })).toBe('/srv/sw/tool-results');
    expect(defaultBase({})).toMatch(/\.spillway\/tool-results$/);
  });

  it('leaves no partial file under its final name when killed mid-write', async () => {
    const base = join(tmp(), 'tool-results');
    const script = `
      import { FileStore } from ${JSON.stringify(new URL('./file-store.ts', import.meta.url).pathname)};
      const store = new FileStore({ base: ${JSON.stringify(base)}, maxFileBytes: 2 ** 31, maxSessionBytes: 2 ** 32, maxTotalBytes: 2 ** 33, pruneOnFirstSpill: false });
      await store.put({ dir: 'sess', name: 'warm' }, Buffer.from('ok'));
      process.stdout.write('ready\\n');
      await store.put({ dir: 'sess', name: 'big' }, Buffer.alloc(1024 * 1024 * 1024, 120));
      process.stdout.write('done\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Kill as soon as the temp file of the big write exists and has some bytes in it.
    const deadline = Date.now() + 30_000;
    let sawTemp = false;
    while (Date.now() < deadline && !sawTemp) {
      await new Promise((r) => setTimeout(r, 5));
      if (!out.includes('ready')) continue;
      const temps = existsSync(join(base, 'sess'))
        ? readdirSync(join(base, 'sess')).filter((n) => n.endsWith('.tmp'))
        : [];
      sawTemp = temps.some((n) => statSync(join(base, 'sess', n)).size > 0);
    }
    child.kill('SIGKILL');
    await exited;
    expect(sawTemp).toBe(true);
    expect(out).not.toContain('done');
    expect(existsSync(join(base, 'sess', 'big.txt'))).toBe(false);
    const store = new FileStore({ base, pruneOnFirstSpill: false });
    expect(await store.get({ dir: 'sess', name: 'big' })).toBeNull();
    expect((await store.list('sess')).map((e) => e.name)).toEqual(['warm']);
  });

  it('takes appends to one log from several processes at once, each record whole, none lost', async () => {
    const base = join(tmp(), 'tool-results');
    const workers = 3;
    const perWorker = 300;
    const script = (w: number) => `
      import { FileStore } from ${JSON.stringify(new URL('./file-store.ts', import.meta.url).pathname)};
      const store = new FileStore({ base: ${JSON.stringify(base)}, pruneOnFirstSpill: false });
      for (let i = 0; i < ${perWorker}; i++)
        await store.append({ dir: 'shared', name: 'fz_log' }, Buffer.from('\\n' + JSON.stringify({ w: ${w}, i, pad: 'x'.repeat(300 + i) })));
    `;
    await Promise.all(
      Array.from(
        { length: workers },
        (_, w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ['--import', 'tsx', '--input-type=module', '-e', script(w)],
              {
                stdio: ['ignore', 'ignore', 'inherit'],
              },
            );
            child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
          }),
      ),
    );
    const records = readFileSync(join(base, 'shared', 'fz_log.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { w: number; i: number; pad: string });
    expect(records).toHaveLength(workers * perWorker);
    expect(new Set(records.map((r) => `${r.w}:${r.i}`)).size).toBe(workers * perWorker);
    for (const r of records) expect(r.pad).toBe('x'.repeat(300 + r.i));
  });

  it('keeps the session quota when several processes spill at once', async () => {
    const base = join(tmp(), 'tool-results');
    const workers = 4;
    const perWorker = 6;
    const script = (w: number) => `
      import { FileStore } from ${JSON.stringify(new URL('./file-store.ts', import.meta.url).pathname)};
      const store = new FileStore({ base: ${JSON.stringify(base)}, maxSessionBytes: 10000, pruneOnFirstSpill: false });
      let ok = 0, quota = 0;
      for (let i = 0; i < ${perWorker}; i++) {
        try { await store.put({ dir: 'shared', name: 'w${w}_' + i }, Buffer.alloc(1000, 65)); ok++; }
        catch (e) { if (e.code === 'SPILLWAY_QUOTA') quota++; else throw e; }
      }
      process.stdout.write(JSON.stringify({ ok, quota }));
    `;
    const results = await Promise.all(
      Array.from(
        { length: workers },
        (_, w) =>
          new Promise<{ ok: number; quota: number }>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ['--import', 'tsx', '--input-type=module', '-e', script(w)],
              { stdio: ['ignore', 'pipe', 'inherit'] },
            );
            let out = '';
            child.stdout.on('data', (c) => {
              out += c;
            });
            child.on('exit', (code) =>
              code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`worker exited ${code}`)),
            );
          }),
      ),
    );
    const ok = results.reduce((n, r) => n + r.ok, 0);
    expect(ok).toBe(10);
    expect(results.reduce((n, r) => n + r.quota, 0)).toBe(workers * perWorker - 10);
    const files = readdirSync(join(base, 'shared')).filter((n) => n.endsWith('.txt'));
    expect(files.length).toBe(10);
    expect(files.reduce((n, f) => n + statSync(join(base, 'shared', f)).size, 0)).toBe(10_000);
  });
});

describe('withLock', () => {
  it('takes over a lock whose holder is dead', async () => {
    const lock = join(tmp(), 'base.lock');
    writeFileSync(
      lock,
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), token: 'dead' }),
    );
    expect(await withLock(lock, async () => 'got it', { timeoutMs: 2000 })).toBe('got it');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock older than the stale age, and a torn lock file', async () => {
    const lock = join(tmp(), 'base.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: 'elsewhere', token: 'old' }));
    const old = Date.now() / 1000 - 120;
    utimesSync(lock, old, old);
    expect(await withLock(lock, async () => 1, { timeoutMs: 2000, staleMs: 60_000 })).toBe(1);
    // A torn lock file (a crash between creating and filling it) is stale once past a grace period.
    writeFileSync(lock, '{"pid":');
    const torn = Date.now() / 1000 - 10;
    utimesSync(lock, torn, torn);
    expect(await withLock(lock, async () => 2, { timeoutMs: 2000 })).toBe(2);
    // A young empty one may be being written by its holder; on Linux its holder would also hold
    // the kernel gate this process now has, so it is taken over; elsewhere it is waited for.
    writeFileSync(lock, '');
    if (process.platform === 'linux') expect(await withLock(lock, async () => 3, { timeoutMs: 200 })).toBe(3);
    else await expect(withLock(lock, async () => 3, { timeoutMs: 200 })).rejects.toThrow(/timed out/);
  });

  it('serialises callers within one process', async () => {
    const lock = join(tmp(), 'base.lock');
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withLock(lock, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((r) => setTimeout(r, 1));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe('FileStore quota ledger', () => {
  it('keeps usage in {base}/.usage.json, shared by every store on the base, and rebuilt by prune', async () => {
    const base = join(tmp(), 'tool-results');
    const a = new FileStore({ base, maxSessionBytes: 100, pruneOnFirstSpill: false });
    const b = new FileStore({ base, maxSessionBytes: 100, pruneOnFirstSpill: false });
    await a.put({ dir: 's', name: 'one' }, Buffer.alloc(60));
    await expect(b.put({ dir: 's', name: 'two' }, Buffer.alloc(60))).rejects.toThrow(
      /would exceed its quota of 100 bytes \(it holds 60\)/,
    );
    const ledger = JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'));
    expect(ledger).toMatchObject({ v: 1, total: 60, dirs: { s: 60 } });
    expect(statSync(join(base, '.usage.json')).mode & 0o777).toBe(0o600);
    // A file removed behind the store's back: the ledger is stale until a scan, which prune does.
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(base, 's', 'one.txt'));
    const { applyRetention } = await import('./retention.js');
    await applyRetention(base, {});
    await b.put({ dir: 's', name: 'two' }, Buffer.alloc(60));
    expect(JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'))).toMatchObject({
      total: 60,
      dirs: { s: 60 },
    });
    // A delete through the store updates it too.
    await b.delete({ dir: 's', name: 'two' });
    expect(JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'))).toMatchObject({
      total: 0,
      dirs: { s: 0 },
    });
  });
});

describe('FileStore when full', () => {
  it('counts again before making room, so a file removed behind the ledger costs no session', async () => {
    const base = join(tmp(), 'tool-results');
    const store = new FileStore({ base, maxTotalBytes: 100, activeAgeMs: 0, pruneOnFirstSpill: false });
    await store.put({ dir: 'old', name: 'a' }, Buffer.alloc(30));
    await store.put({ dir: 's', name: 'one' }, Buffer.alloc(60));
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(base, 's', 'one.txt'));
    // The ledger says 90 + 40 > 100; the disk holds 30 + 40: nothing needs to go.
    await store.put({ dir: 'new', name: 'x' }, Buffer.alloc(40));
    expect((await store.get({ dir: 'old', name: 'a' }))?.length).toBe(30);
    expect(JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'))).toMatchObject({ total: 70 });
    // Full for real now: the idle session goes.
    await store.put({ dir: 'new', name: 'y' }, Buffer.alloc(50));
    expect(await store.get({ dir: 'old', name: 'a' })).toBeNull();
  });
});

describe('FileStore batches', () => {
  it('writes a batch under one ledger update, and nothing of a batch over quota', async () => {
    const base = join(tmp(), 'tool-results');
    const store = new FileStore({ base, maxSessionBytes: 100, pruneOnFirstSpill: false });
    const entries = Array.from({ length: 20 }, (_, i) => ({
      key: { dir: 'pruned', name: `id${i}` },
      body: Buffer.alloc(10, i),
    }));
    expect(await store.putAllIfAbsent(entries)).toBe(20);
    expect(JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'))).toMatchObject({ total: 200 });
    for (const { key, body } of entries) expect(await store.get(key)).toEqual(body);
    expect(mode(join(base, 'pruned', 'id3.txt'))).toBe(0o600);
    // 60 + 60 bytes for one session: over its quota of 100, so neither is written.
    await expect(
      store.putAllIfAbsent([
        { key: { dir: 's', name: 'a' }, body: Buffer.alloc(60) },
        { key: { dir: 's', name: 'b' }, body: Buffer.alloc(60) },
      ]),
    ).rejects.toMatchObject({ code: 'SPILLWAY_QUOTA' });
    expect(await store.stat({ dir: 's', name: 'a' })).toBeNull();
    expect(JSON.parse(readFileSync(join(base, '.usage.json'), 'utf8'))).toMatchObject({ total: 200 });
    expect(readdirSync(join(base, 'pruned')).filter((f) => !f.endsWith('.txt'))).toEqual([]);
    // A batch of entries all there already (content-addressed stashes seen before) writes
    // nothing, the ledger included.
    const ledger = statSync(join(base, '.usage.json'));
    expect(await store.putAllIfAbsent(entries.slice(0, 5))).toBe(0);
    const after = statSync(join(base, '.usage.json'));
    expect([after.ino, after.mtimeMs]).toEqual([ledger.ino, ledger.mtimeMs]);
  });
});
