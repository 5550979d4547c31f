import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BAD_PARTS } from '../test-support/store-contract.js';
import { FileStore } from './backends/file-store.js';
import { MemoryStore } from './backends/memory-store.js';
import { cap, DEFAULT_CAP_BYTES } from './cap.js';
import { recall, recallAll } from './recall/recall.js';

const newBase = () => join(mkdtempSync(join(tmpdir(), 'spillway-cap-')), 'tool-results');
const fileStore = (base = newBase(), more = {}) => new FileStore({ base, pruneOnFirstSpill: false, ...more });
const bytes = (s: string) => Buffer.byteLength(s);
const log = Array.from(
  { length: 3000 },
  (_, i) => `line ${i}: ${i % 10 === 0 ? 'ERROR' : 'ok'} — café 😀`,
).join('\n');

describe('cap (the celeste cases)', () => {
  it('returns a result under the limit unchanged and writes nothing', async () => {
    const store = fileStore();
    const r = await cap('short result', { maxBytes: 100, session: 's', call: 'c', store });
    expect(r).toEqual({ text: 'short result', capped: false, bytes: 12 });
    expect(existsSync(store.base)).toBe(false);
  });

  it('returns a result exactly at the limit unchanged', async () => {
    const text = 'x'.repeat(100);
    const r = await cap(text, { maxBytes: 100, session: 's', call: 'c', store: fileStore() });
    expect(r.capped).toBe(false);
    expect(r.text).toBe(text);
  });

  it('over the limit, spills to {base}/{session}/{call}.txt and says the total, the path and the id', async () => {
    const store = fileStore();
    const r = await cap(log, { maxBytes: 2000, session: 'sess-1', call: 'toolu_01', store });
    const path = join(store.base, 'sess-1', 'toolu_01.txt');
    expect(r).toMatchObject({
      capped: true,
      id: 'sess-1/toolu_01',
      path,
      bytes: bytes(log),
      storedBytes: bytes(log),
    });
    expect(readFileSync(path, 'utf8')).toBe(log);
    expect(r.text).toContain(
      `TRUNCATED: ${bytes(log)} bytes total, full output saved to: ${path}; recall with spillway_expand id "sess-1/toolu_01"`,
    );
    expect(bytes(r.text)).toBeLessThanOrEqual(2000);
    // Head and tail are kept and the text is valid UTF-8.
    expect(r.text.startsWith('line 0: ERROR')).toBe(true);
    expect(r.text.endsWith('line 2999: ok — café 😀')).toBe(true);
    expect(Buffer.from(r.text).toString('utf8')).toBe(r.text);
  });

  it('creates the session directory and keeps the spill private, tightening loose permissions', async () => {
    const base = newBase();
    mkdirSync(join(base, 'sess'), { recursive: true, mode: 0o777 });
    writeFileSync(join(base, 'sess', 'other.txt'), 'x', { mode: 0o666 });
    const store = fileStore(base);
    await cap(log, { maxBytes: 1000, session: 'sess', call: 'c1', store });
    await cap(log, { maxBytes: 1000, session: 'new-sess', call: 'c1', store });
    expect(statSync(join(base, 'new-sess')).isDirectory()).toBe(true);
    expect(statSync(join(base, 'sess')).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, 'sess', 'c1.txt')).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, 'new-sess', 'c1.txt')).mode & 0o777).toBe(0o600);
  });

  it('uses the default max bytes when given 0 or a negative number', async () => {
    expect(DEFAULT_CAP_BYTES).toBe(128 * 1024);
    const big = 'y'.repeat(DEFAULT_CAP_BYTES * 2);
    for (const maxBytes of [0, -5, undefined]) {
      const r = await cap(big, { maxBytes, session: 's', call: 'c', store: new MemoryStore() });
      expect(r.capped).toBe(true);
      expect(bytes(r.text)).toBeLessThanOrEqual(DEFAULT_CAP_BYTES);
      expect(bytes(r.text)).toBeGreaterThan(DEFAULT_CAP_BYTES - 200);
    }
    expect(
      (
        await cap('y'.repeat(DEFAULT_CAP_BYTES), {
          maxBytes: 0,
          session: 's',
          call: 'c',
          store: new MemoryStore(),
        })
      ).capped,
    ).toBe(false);
  });

  it('rejects bad ids without touching the disk, and still caps the text', async () => {
    const store = fileStore();
    for (const bad of BAD_PARTS) {
      for (const [session, call] of [
        [bad, 'c'],
        ['s', bad],
      ] as const) {
        const r = await cap(log, { maxBytes: 1500, session, call, store });
        expect(r.capped).toBe(true);
        expect(r.id).toBeUndefined();
        expect(r.error?.code).toBe('SPILLWAY_BAD_ID');
        expect(r.text).toMatch(/the full output could not be saved \(the session or call id is not valid\)/);
        expect(r.text).not.toContain('spillway_expand');
        expect(bytes(r.text)).toBeLessThanOrEqual(1500);
      }
    }
    expect(existsSync(store.base)).toBe(false);
  });

  it('renames a session called "pruned" so it never mixes with the stash', async () => {
    const store = fileStore();
    const r = await cap(log, { maxBytes: 1000, session: 'pruned', call: 'c', store });
    expect(r.id).toBe('_pruned/c');
    expect(existsSync(join(store.base, '_pruned', 'c.txt'))).toBe(true);
    expect(existsSync(join(store.base, 'pruned'))).toBe(false);
    // A session really called "_pruned" gets a directory of its own.
    const other = await cap(`${log}\nother`, { maxBytes: 1000, session: '_pruned', call: 'c', store });
    expect(other.id).toBe('__pruned/c');
    expect((await recallAll(r.id as string, { store })).toString()).toBe(log);
    expect((await recallAll(other.id as string, { store })).toString()).toBe(`${log}\nother`);
  });

  it('cuts a spill over the file quota and says "first N bytes"', async () => {
    const store = fileStore(newBase(), { maxFileBytes: 10_000 });
    const r = await cap(log, { maxBytes: 2000, session: 's', call: 'c', store });
    expect(r.storedBytes).toBeLessThanOrEqual(10_000);
    expect(r.text).toContain(`TRUNCATED: ${bytes(log)} bytes total, first ${r.storedBytes} bytes saved to: `);
    const stored = readFileSync(join(store.base, 's', 'c.txt'));
    expect(stored.length).toBe(r.storedBytes);
    expect(log.startsWith(stored.toString('utf8'))).toBe(true);
  });

  it('over the session quota, still caps with a note saying how to get the rest, and reports the error', async () => {
    const store = fileStore(newBase(), { maxSessionBytes: bytes(log) + 10 });
    expect((await cap(log, { maxBytes: 2000, session: 's', call: 'c1', store })).id).toBe('s/c1');
    const r = await cap(log, { maxBytes: 2000, session: 's', call: 'c2', store });
    expect(r.capped).toBe(true);
    expect(r.error?.code).toBe('SPILLWAY_QUOTA');
    expect(r.text).toContain(
      'the full output could not be saved (the spill quota is full); to see the missing part, re-run the command narrower (a line range, grep, head or tail)',
    );
    expect(existsSync(join(store.base, 's', 'c2.txt'))).toBe(false);
  });

  it('rechecks the total quota after making room from old idle sessions', async () => {
    const base = newBase();
    const store = fileStore(base, { maxTotalBytes: bytes(log) * 2 + 100 });
    await cap(log, { maxBytes: 1000, session: 'old', call: 'c', store });
    await cap(log, { maxBytes: 1000, session: 'mid', call: 'c', store });
    // Age "old" past the active window so retention may take it.
    const past = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(join(base, 'old', 'c.txt'), past, past);
    const r = await cap(log, { maxBytes: 1000, session: 'new', call: 'c', store });
    expect(r.id).toBe('new/c');
    expect(existsSync(join(base, 'old'))).toBe(false);
    expect(existsSync(join(base, 'mid', 'c.txt'))).toBe(true);
    // With nothing idle to remove, the quota holds and the spill is refused.
    const refused = await cap(log, { maxBytes: 1000, session: 'newer', call: 'c', store });
    expect(refused.error?.code).toBe('SPILLWAY_QUOTA');
  });

  it('reports a store that cannot write, and still caps', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spillway-cap-'));
    writeFileSync(join(root, 'tool-results'), 'a file where the base should be');
    const r = await cap(log, {
      maxBytes: 1500,
      session: 's',
      call: 'c',
      store: fileStore(join(root, 'tool-results')),
    });
    expect(r.capped).toBe(true);
    expect(r.error?.code).toBe('SPILLWAY_IO');
    expect(r.text).toMatch(/could not be saved \(write failed/);
    expect(bytes(r.text)).toBeLessThanOrEqual(1500);
  });

  it('drops the path, then the id, then the totals as the budget gets tight', async () => {
    const store = fileStore();
    const notes = new Set<string>();
    for (const maxBytes of [600, 300, 150, 60, 40]) {
      const r = await cap(log, { maxBytes, session: 'sess', call: 'call', store });
      expect(bytes(r.text)).toBeLessThanOrEqual(maxBytes);
      const marker = /\[\.\.\.snipped \d+ bytes(?:\.\.\.|\. (.*))\]/.exec(r.text);
      notes.add(marker?.[1] ?? (marker ? 'no note' : 'no marker'));
    }
    const seen = [...notes];
    expect(seen[0]).toMatch(/saved to: .*; recall with spillway_expand id "sess\/call"/);
    expect(seen).toContain(
      `TRUNCATED: ${bytes(log)} bytes total, full output saved; recall with spillway_expand id "sess/call"`,
    );
    expect(seen).toContain(`TRUNCATED: ${bytes(log)} bytes total`);
    expect(seen.at(-1)).toBe('no note');
  });

  it('spills the exact bytes of binary input', async () => {
    const store = new MemoryStore();
    const input = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(log)]);
    const r = await cap(input, { maxBytes: 500, session: 's', call: 'c', store });
    expect(await store.get({ dir: 's', name: 'c' })).toEqual(input);
    expect(bytes(r.text)).toBeLessThanOrEqual(500);
  });

  it('property: recall, paged to the end, returns exactly the original bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 3000 }).map((s) => Buffer.from(s)),
          fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
        ),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 4, max: 700 }),
        async (input, maxBytes, pageBytes) => {
          const store = new MemoryStore();
          const r = await cap(input, { maxBytes, session: 's', call: 'c', store });
          expect(bytes(r.text)).toBeLessThanOrEqual(maxBytes);
          if (!r.capped) return;
          const pages: Buffer[] = [];
          let page = await recall(r.id as string, { store, pageBytes });
          pages.push(page.body);
          while (!page.done) {
            page = await recall(r.id as string, { store, offset: page.end, pageBytes });
            expect(page.body.length).toBeGreaterThan(0);
            pages.push(page.body);
          }
          expect(Buffer.concat(pages)).toEqual(input);
        },
      ),
      { numRuns: 200 },
    );
  });
});
