import { describe, expect, it } from 'vitest';
import { stashId } from '../../text/content-hash.js';
import { MemoryStore } from '../backends/memory-store.js';
import { stash } from '../stash.js';
import { RECALL_PAGE_BYTES, recall, recallAll, recallFooter } from './recall.js';

describe('recall', () => {
  it('pages a spill in pieces of at most 48 KiB, each with a footer naming the next offset', async () => {
    const store = new MemoryStore();
    const body = Buffer.from('0123456789'.repeat(12_000));
    await store.put({ dir: 's', name: 'c' }, body);
    const first = await recall('s/c', { store });
    expect(first.body.length).toBe(RECALL_PAGE_BYTES);
    expect(
      first.text.endsWith(`\n[bytes 0-49152 of 120000; call spillway_expand with offset 49152 for more]`),
    ).toBe(true);
    expect(first.done).toBe(false);
    const second = await recall('s/c', { store, offset: first.end });
    expect(second.start).toBe(49_152);
    const last = await recall('s/c', { store, offset: second.end });
    expect(last.done).toBe(true);
    expect(last.text.endsWith('[bytes 98304-120000 of 120000; end of output]')).toBe(true);
    expect(Buffer.concat([first.body, second.body, last.body])).toEqual(body);
  });

  it('ends pages on UTF-8 character boundaries', async () => {
    const store = new MemoryStore();
    const text = '😀'.repeat(20_000);
    await store.put({ dir: 's', name: 'c' }, Buffer.from(text));
    let page = await recall('s/c', { store });
    let joined = page.text.slice(0, page.text.lastIndexOf('\n['));
    expect(page.body.length % 4).toBe(0);
    while (!page.done) {
      page = await recall('s/c', { store, offset: page.end });
      joined += page.text.slice(0, page.text.lastIndexOf('\n['));
    }
    expect(joined).toBe(text);
  });

  it('recalls stash entries by their content id', async () => {
    const store = new MemoryStore();
    const id = await stash(store, 'stashed original');
    expect(id).toBe(stashId('stashed original'));
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await recall(id, { store })).text).toBe('stashed original\n[bytes 0-16 of 16; end of output]');
    expect((await recallAll(id, { store })).toString()).toBe('stashed original');
    // Stashing the same content again keeps one entry.
    expect(await stash(store, 'stashed original')).toBe(id);
    expect((await store.list('pruned')).length).toBe(1);
  });

  it('gives unknown ids a final answer and malformed ids a clear error', async () => {
    const store = new MemoryStore();
    await expect(recall('s/missing', { store })).rejects.toMatchObject({
      code: 'SPILLWAY_NOT_FOUND',
      message: 'no stored tool result with id "s/missing"; do not retry',
    });
    await expect(recallAll('nohash', { store })).rejects.toMatchObject({ code: 'SPILLWAY_NOT_FOUND' });
    for (const bad of ['../../etc/passwd', 'a/b/c', '', 's/', '/c', 'a\\b']) {
      await expect(recall(bad, { store })).rejects.toMatchObject({ code: 'SPILLWAY_BAD_ID' });
    }
  });

  it('rejects offsets that are negative, fractional or past the end', async () => {
    const store = new MemoryStore();
    await store.put({ dir: 's', name: 'c' }, Buffer.from('abc'));
    await expect(recall('s/c', { store, offset: -1 })).rejects.toThrow(/offset must be a whole number >= 0/);
    await expect(recall('s/c', { store, offset: 1.5 })).rejects.toThrow(/offset must be a whole number/);
    await expect(recall('s/c', { store, offset: 4 })).rejects.toThrow(
      /offset 4 is past the end of "s\/c" \(3 bytes\)/,
    );
    expect((await recall('s/c', { store, offset: 3 })).text).toBe('\n[bytes 3-3 of 3; end of output]');
  });

  it('formats footers', () => {
    expect(recallFooter(0, 10, 20)).toBe('[bytes 0-10 of 20; call spillway_expand with offset 10 for more]');
    expect(recallFooter(10, 20, 20)).toBe('[bytes 10-20 of 20; end of output]');
  });
});
