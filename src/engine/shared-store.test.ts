import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import type { StoreKey } from '../store/ids.js';
import type { ToolResult } from '../text/tool-result.js';
import { resolveEngineConfig } from './config.js';
import { ConversationEngine } from './conversation.js';

/** A store two proxies share (as Redis is), whose appends can be made to fail (Redis away). */
class SharedStore extends MemoryStore {
  override readonly shared = true;
  down = false;
  override async append(key: StoreKey, body: Uint8Array): Promise<void> {
    if (this.down) throw new Error('store away');
    return super.append(key, body);
  }
}

const log = (tag: string) =>
  Array.from({ length: 3000 }, (_, i) => `${tag} ${i}: compiled module-${i}.ts in ${i % 17} ms`).join('\n');
const call = (i: number, command = `make target-${i}`): ToolResult => ({
  id: `t${i}`,
  tool: 'Bash',
  content: log(`r${i}`),
  position: 2 * i + 1,
  input: { command },
});
/** The first `n` turns' results (one call each): the request of turn n. */
const upTo = (n: number, command?: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => call(i, command?.(i)));

describe('engines of two proxies sharing a store', () => {
  it('take up where the other left off: its boundary, its cache clock, its decisions', async () => {
    const store = new SharedStore();
    const a = new ConversationEngine({ config: resolveEngineConfig(), store, session: 's' });
    const b = new ConversationEngine({ config: resolveEngineConfig(), store, session: 's' });
    const one = await a.turn({ results: upTo(1), messageCount: 3, now: 1000 });
    await a.flush();
    const two = await b.turn({ results: upTo(2), messageCount: 5, now: 2000 });
    // Not a cold start for B: A sent the first three messages a second ago.
    expect(two).toMatchObject({ cachedPrefix: 3, coldCache: false });
    expect(two.results[0]?.content).toBe(one.results[0]?.content);
    await b.flush();
    const three = await a.turn({ results: upTo(3), messageCount: 7, now: 3000 });
    expect(three).toMatchObject({ cachedPrefix: 5, coldCache: false });
    expect(three.results.slice(0, 2).map((r) => r.content)).toEqual(two.results.map((r) => r.content));
  });

  it('after an outage, a decision the other proxy wrote first wins over one that was never written', async () => {
    const store = new SharedStore();
    const a = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'o' });
    const b = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'o' });
    // The same command run again: supersede masks the earlier result, naming the newest run.
    const same = () => 'make all';
    await a.turn({ results: upTo(1, same), messageCount: 3, now: 1000 });
    await a.flush();
    store.down = true;
    // Each proxy decides the stale result on its own while nothing can be written.
    await a.turn({ results: upTo(2, same), messageCount: 5, now: 2000 });
    await a.flush();
    await b.turn({ results: upTo(3, same), messageCount: 7, now: 3000 });
    await b.flush();
    store.down = false;
    const fromB = await b.turn({ results: upTo(4, same), messageCount: 9, now: 4000 });
    await b.flush();
    const fromA = await a.turn({ results: upTo(4, same), messageCount: 9, now: 5000 });
    await a.flush();
    expect(fromA.results.map((r) => r.content)).toEqual(fromB.results.map((r) => r.content));
  });

  it('reads a log begun again shorter (the session evicted, then gone on through the other proxy)', async () => {
    const store = new SharedStore();
    const a = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'e' });
    const b = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'e' });
    const turn = async (engine: ConversationEngine, n: number) => {
      const out = await engine.turn({ results: upTo(n), messageCount: 2 * n + 1, now: n * 1000 });
      await engine.flush();
      return out;
    };
    for (const [engine, n] of [
      [a, 1],
      [a, 2],
      [b, 3],
      [a, 4],
    ] as const)
      await turn(engine, n);
    const before = (await store.stat({ dir: 'e', name: 'fz_log' }))?.bytes ?? 0;
    await store.delete({ dir: 'e', name: 'fz_log' });
    await turn(b, 5);
    expect((await store.stat({ dir: 'e', name: 'fz_log' }))?.bytes).toBeLessThan(before);
    expect(await turn(a, 6)).toMatchObject({ cachedPrefix: 11, coldCache: false });
  });

  it('a store of one process is not re-read each turn (no shared flag, no turn marks)', async () => {
    const store = new MemoryStore();
    const a = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'p' });
    await a.turn({ results: upTo(1), messageCount: 3, now: 1000 });
    await a.flush();
    const b = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'p' });
    expect(await b.turn({ results: upTo(2), messageCount: 5, now: 2000 })).toMatchObject({
      cachedPrefix: 0,
      coldCache: true,
    });
    const logText = (await store.get({ dir: 'p', name: 'fz_log' }))?.toString() ?? '';
    expect(logText).not.toContain('~turn');
  });
});
