import { describe, expect, it } from 'vitest';
import { collapseText } from '../collapse/text.js';
import { originalOf } from '../text/content-hash.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { MemoryStore } from './backends/memory-store.js';
import { stashKey } from './ids.js';
import { expand } from './recall/expand.js';
import { stash, stashOriginal } from './stash.js';
import type { Store } from './store.js';

describe('stash', () => {
  it('writes the stashes asked for in one turn together, each recallable once its promise resolves', async () => {
    const batches: number[] = [];
    const store: Store = new MemoryStore();
    store.putAllIfAbsent = async (entries) => {
      batches.push(entries.length);
      let written = 0;
      for (const { key, body } of entries) if (await store.putIfAbsent(key, body)) written++;
      return written;
    };
    const texts = ['one', 'two', 'three', 'two'];
    const ids = await Promise.all(texts.map((t) => stashOriginal(store, originalOf(t))));
    expect(batches).toEqual([3]);
    expect(ids).toEqual(texts.map((t) => originalOf(t).id()));
    for (const [i, id] of ids.entries()) expect((await store.get(stashKey(id)))?.toString()).toBe(texts[i]);
    // Asked for in a later turn: a batch of its own; one alone is a plain put.
    await stashOriginal(store, originalOf('four'));
    await Promise.all([stashOriginal(store, originalOf('five')), stashOriginal(store, originalOf('six'))]);
    expect(batches).toEqual([3, 2]);
  });

  it('decides each stash of a failed batch on its own: one failure fails only its own', async () => {
    const refused = originalOf('refused');
    const store: Store = new MemoryStore();
    store.putAllIfAbsent = async () => {
      throw new Error('the batch failed');
    };
    const putIfAbsent = store.putIfAbsent.bind(store);
    store.putIfAbsent = async (key, body) => {
      if (key.name === refused.id()) throw new Error('this one cannot be written');
      return putIfAbsent(key, body);
    };
    const texts = ['kept', 'refused', 'also kept'];
    const settled = await Promise.allSettled(texts.map((t) => stashOriginal(store, originalOf(t))));
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('this one cannot be written');
    expect((await store.get(stashKey(originalOf('also kept').id())))?.toString()).toBe('also kept');
  });

  it('keeps an original whole or not at all: over maxFileBytes it refuses and writes nothing', async () => {
    const store = new MemoryStore({ maxFileBytes: 1000 });
    const fits = 'x'.repeat(1000);
    expect((await store.get(stashKey(await stash(store, fits))))?.toString()).toBe(fits);
    const over = originalOf('y'.repeat(1001));
    await expect(stashOriginal(store, over)).rejects.toMatchObject({
      code: 'SPILLWAY_QUOTA',
      message: expect.stringMatching(/1001 bytes, over the store's limit of 1000 bytes .* not saved/),
    });
    expect(await store.get(stashKey(over.id()))).toBeNull();
  });

  it('keeps a lone surrogate of a result (JSON can carry one) and recalls it as itself', async () => {
    const store = new MemoryStore();
    const original = `${Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n')}\nodd \ud800 unit\nlast`;
    const id = await stash(store, original);
    const page = await expand(store, { id, maxTokens: 4000 });
    expect(page.slice(0, page.lastIndexOf('\n['))).toBe(original);
    expect(await expand(store, { id, grep: 'odd' })).toContain('51:odd \ud800 unit');
  });

  it('so a collapse of an original too large to keep names nothing to recall and says so', async () => {
    const store = new MemoryStore({ maxFileBytes: 10_000 });
    const log = Array.from(
      { length: 3000 },
      (_, i) => `line ${i}: ${i === 1500 ? 'FATAL out of memory' : 'ok'}`,
    ).join('\n');
    const original = originalOf(log);
    const out = await collapseText(
      log,
      { budget: 500 },
      {
        tokenizer: getTokenizer('o200k'),
        id: () => original.id(),
        stash: () => stashOriginal(store, original),
      },
    );
    expect(out).toMatchObject({ action: 'acted', fallback: 'stash_failed' });
    if (out.action !== 'acted') return;
    expect(out.text).toContain('cannot be recalled');
    expect(out.text).toContain('FATAL out of memory');
    expect(out.text).not.toMatch(/<<sw:/);
  });
});
