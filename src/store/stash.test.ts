import { describe, expect, it } from 'vitest';
import { collapseText } from '../pipeline/stages/collapse/text.js';
import { originalOf } from '../text/content-hash.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { expand } from './expand.js';
import { stashKey } from './ids.js';
import { MemoryStore } from './memory-store.js';
import { stash, stashOriginal } from './stash.js';

describe('stash', () => {
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
      { resolvedMaxTokens: 500 },
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
