import { describe, expect, it } from 'vitest';
import { replayConversation } from '../replay/replay-conversation.js';
import { enginePruner } from '../session/prune-session.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import type { ToolResult } from '../text/tool-result.js';
import { resolveEngineConfig } from './config.js';
import { ConversationEngine } from './conversation.js';
import type { Stage } from './types.js';

const o200k = getTokenizer('o200k');
const log = (tag: string, lines = 4000) =>
  Array.from({ length: lines }, (_, i) => `${tag} ${i}: compiled module-${i}.ts in ${i % 17} ms`).join('\n');
const result = (id: string, content: string, position: number): ToolResult => ({
  id,
  tool: 'Bash',
  content,
  position,
});

describe('ConversationEngine', () => {
  it('gives every caller the budget the stage honours: maxFrac of a known window', async () => {
    // One long line: the character window fills whatever budget it is given.
    const line = log('a').replaceAll('\n', ' ');
    const config = resolveEngineConfig({ stages: [{ name: 'collapse', maxFrac: 0.02 }] });
    const engine = new ConversationEngine({ config, store: new MemoryStore(), session: 'frac' });
    expect(engine.budgetFor({ tool: 'Bash' }, 200_000)).toBe(4000);
    expect(engine.budgetFor({ tool: 'Bash' })).toBe(2000);
    const turn = await engine.turn({
      results: [result('t1', line, 1)],
      messageCount: 2,
      model: 'claude-sonnet-4-5',
    });
    const tokens = o200k.count(turn.results[0]?.content as string);
    expect(tokens).toBeLessThanOrEqual(4000);
    expect(tokens).toBeGreaterThan(2000);

    // The replay checks against the same budget: no false violation.
    const replay = await replayConversation(
      { id: 'frac', model: 'claude-sonnet-4-5', turns: [[result('t1', line, 0)]] },
      { config },
    );
    expect(replay.results[0]?.tokensAfter).toBeGreaterThan(2000);
    expect(replay.violations).toEqual([]);
  });

  it('owns the cached-prefix boundary: cold first turn, never shrinking, reset by compaction', async () => {
    const engine = new ConversationEngine({
      config: resolveEngineConfig(),
      store: new MemoryStore(),
      session: 'b',
    });
    const first = await engine.turn({ results: [], messageCount: 3, now: 1000 });
    expect(first).toMatchObject({ cachedPrefix: 0, coldCache: true });
    expect(engine.boundary).toBe(3);
    // count_tokens does not move the conversation on.
    await engine.turn({ results: [], messageCount: 9, now: 1001, advance: false });
    expect(engine.boundary).toBe(3);
    const second = await engine.turn({ results: [], messageCount: 5, now: 1002 });
    expect(second).toMatchObject({ cachedPrefix: 3, coldCache: false });
    // Past the cache TTL the cache is cold again, but the boundary stands.
    const late = await engine.turn({ results: [], messageCount: 6, now: 1002 + 6 * 60_000 });
    expect(late).toMatchObject({ cachedPrefix: 5, coldCache: true });
    // Shorter than the boundary: compacted or rewound, so it starts again.
    const compacted = await engine.turn({ results: [], messageCount: 2, now: 400_000 });
    expect(compacted).toMatchObject({ cachedPrefix: 0, coldCache: true });
    expect(engine.boundary).toBe(2);
    // A request that continues server-side state has no local prefix and moves nothing.
    const server = await engine.turn({
      results: [],
      messageCount: 1,
      continuesServerState: true,
      now: 400_001,
    });
    expect(server.cachedPrefix).toBe(0);
    expect(engine.boundary).toBe(2);
  });

  it('replays its frozen decisions on later turns and leaves unseen prefix results alone', async () => {
    const store = new MemoryStore();
    const engine = new ConversationEngine({ config: resolveEngineConfig(), store, session: 'f' });
    const big = result('t1', log('b'), 1);
    const one = await engine.turn({ results: [big], messageCount: 2 });
    const collapsed = one.results[0]?.content as string;
    expect(collapsed).not.toBe(big.content);
    const [id] = markerIds(collapsed);
    expect((await recallAll(id as string, { store })).toString()).toBe(big.content);
    // Another engine on the same store (a restart): the same bytes, and an unseen result in the
    // cached prefix stays as it is.
    const restarted = new ConversationEngine({
      config: resolveEngineConfig({ preset: 'safe' }),
      store,
      session: 'f',
    });
    await restarted.turn({ results: [], messageCount: 4 });
    const two = await restarted.turn({
      results: [big, result('t2', log('c'), 3), result('t3', log('d'), 4)],
      messageCount: 5,
    });
    expect(two.results[0]?.content).toBe(collapsed);
    expect(two.frozenReplayed).toBe(1);
    expect(two.results[1]?.content).toBe(log('c'));
    expect(two.outcomes[1]?.trail.some((t) => t.outcome === 'cached_prefix')).toBe(true);
    expect(o200k.count(two.results[2]?.content as string)).toBeLessThanOrEqual(3000);
  });

  it('gives session pruning the runner guarantees: a stage that grows a result is reverted', async () => {
    const grows: Stage = {
      name: 'collapse',
      lossy: false,
      pure: true,
      run: async (items) => items.map((item) => ({ action: 'acted', content: `${item.content}!` })),
    };
    const prune = enginePruner({ ...resolveEngineConfig(), stages: [grows] }, new MemoryStore());
    expect(await prune('some output', { role: 'tool', toolCallId: 't1', content: 'some output' })).toBeNull();
    const collapse = enginePruner(resolveEngineConfig(), new MemoryStore());
    const out = await collapse(log('e'), {
      role: 'tool',
      toolCallId: 't2',
      toolName: 'Bash',
      content: log('e'),
    });
    expect(o200k.count(out as string)).toBeLessThanOrEqual(2000);
  });
});
