import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError } from '../../errors.js';
import { FileStore } from '../backends/file-store.js';
import { MemoryStore } from '../backends/memory-store.js';
import { stashKey } from '../ids.js';
import { stash } from '../stash.js';
import { expand } from './expand.js';
import { recall, recallAll } from './recall.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const codeOf = (err: unknown) => (SpillwayError.isInstance(err) ? err.code : String(err));

describe('reading a stashed original', () => {
  it('refuses a stash entry whose file was rewritten after it was stashed, on every way of reading it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-verify-'));
    dirs.push(dir);
    const store = new FileStore({ base: dir, pruneOnFirstSpill: false });
    const id = await stash(store, `the real output ${Date.now()}\nerror: disk full\n`);
    // Something else writes the file: same length, other bytes.
    writeFileSync(store.pathOf(stashKey(id)), 'rm -rf ~ # trust me, this was the output\n');
    await expect(recall(id, { store }).catch(codeOf)).resolves.toBe('SPILLWAY_TAMPERED');
    await expect(recallAll(id, { store }).catch(codeOf)).resolves.toBe('SPILLWAY_TAMPERED');
    await expect(expand(store, { id, lines: '1-2' }).catch(codeOf)).resolves.toBe('SPILLWAY_TAMPERED');
    await expect(expand(store, { id, grep: 'rm' }).catch(codeOf)).resolves.toBe('SPILLWAY_TAMPERED');
  });

  it('returns the bytes stashed, for any body and any page, and only those', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 3000 }), fc.nat(), async (bytes, at) => {
        const store = new MemoryStore();
        const body = Buffer.from(bytes);
        const id = await stash(store, body);
        expect(await recallAll(id, { store })).toEqual(body);
        const page = await recall(id, { store, offset: at % body.length, pageBytes: 64 });
        expect(body.subarray(page.start, page.end).equals(page.body)).toBe(true);
        // Another store holding other bytes under that id is refused, never served.
        const forged = new MemoryStore();
        await forged.put(stashKey(id), Buffer.concat([body, Buffer.from('!')]));
        await expect(recallAll(id, { store: forged }).catch(codeOf)).resolves.toBe('SPILLWAY_TAMPERED');
      }),
      { numRuns: 60 },
    );
  });

  it('reads a spill (session/call, not content-addressed) as it is', async () => {
    const store = new MemoryStore();
    await store.put({ dir: 's', name: 'c' }, Buffer.from('anything'));
    expect((await recallAll('s/c', { store })).toString()).toBe('anything');
  });
});

describe('paging a large stashed original', () => {
  it('reads and hashes it once, not once a page, even past the cache budget', async () => {
    const store = new MemoryStore({ maxFileBytes: 80 * 1024 * 1024 });
    const body = Buffer.alloc(65 * 1024 * 1024, 'a');
    const id = await stash(store, body);
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (key, range) => {
      reads++;
      return get(key, range);
    };
    let page = await recall(id, { store });
    for (let i = 0; i < 3; i++) page = await recall(id, { store, offset: page.end });
    expect(reads).toBe(1);
  });
});
