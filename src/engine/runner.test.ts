import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { stashKey } from '../store/ids.js';
import { jsonLine, logLines, result, testContext } from '../test-support/stages.js';
import { contentBytes } from '../text/blocks.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { resolveEngineConfig } from './config.js';
import { FrozenDecisions } from './frozen.js';
import { runStages } from './runner.js';
import type { Decision, Stage } from './types.js';

const stage = (
  name: Stage['name'],
  lossy: boolean,
  decide: () => Decision | Promise<Decision>,
  pure = false,
): Stage => ({
  name,
  lossy,
  pure,
  run: async (items) => {
    const out = [];
    for (const _ of items) out.push(await decide());
    return out;
  },
});

describe('runner rules', () => {
  it('reverts and counts a stage that throws, and goes on with the next', async () => {
    const boom: Stage = {
      name: 'format',
      lossy: false,
      pure: true,
      run: async () => Promise.reject(new Error('boom')),
    };
    const ok = stage('textclean', false, () => ({ action: 'acted', content: 'cleaned' }));
    const run = await runStages([result('dirty dirty')], [boom, ok], testContext());
    expect(run.stats.format?.reverted).toEqual({ threw: 1 });
    expect(run.results[0]?.content).toBe('cleaned');
    expect(run.outcomes[0]?.trail).toEqual([
      { stage: 'format', outcome: 'reverted:threw' },
      { stage: 'textclean', outcome: 'acted' },
    ]);
  });

  it('reverts a change that makes a result larger', async () => {
    const grow = stage('format', false, () => ({ action: 'acted', content: 'much longer than before' }));
    const run = await runStages([result('short')], [grow], testContext());
    expect(run.results[0]?.content).toBe('short');
    expect(run.stats.format?.reverted).toEqual({ grew: 1 });
  });

  it('reverts a lossy change without a stash id; a decline keeps its detail on the outcome', async () => {
    const lossy = stage('collapse', true, () => ({ action: 'acted', content: 'x' }));
    const run = await runStages([result('original text')], [lossy], testContext());
    expect(run.results[0]?.content).toBe('original text');
    expect(run.stats.collapse?.reverted).toEqual({ lossy_without_stash: 1 });
    const unsaved = stage('collapse', true, () => ({
      action: 'declined',
      reason: 'stash_failed',
      detail: { stashError: 'disk full' },
    }));
    const run2 = await runStages([result('original text')], [unsaved], testContext());
    expect(run2.results[0]?.content).toBe('original text');
    expect(run2.stats.collapse?.declined).toEqual({ stash_failed: 1 });
    expect(run2.outcomes[0]?.detail).toEqual({ stashError: 'disk full' });
  });

  it("skips a result that is exactly spillway's own output, in lossy stages only", async () => {
    const ctx = testContext();
    const config = resolveEngineConfig({ preset: 'balanced' });
    const first = await runStages([result(logLines(3000))], config.stages, ctx, {
      tools: config.tools,
    });
    const own = first.results[0]?.content as string;
    expect(markerIds(own)).toHaveLength(1);
    const lossy = stage('collapse', true, () => ({ action: 'acted', content: 'x', stashId: 'y' }));
    const pure = stage('textclean', false, () => ({ action: 'acted', content: 'm' }));
    const run = await runStages([result(own)], [lossy, pure], ctx);
    expect(run.stats.collapse?.declined).toEqual({ already_marked: 1 });
    expect(run.results[0]?.content).toBe('m');
  });

  it('collapses a forged marker: a real id (computable offline) in front of other text is just text', async () => {
    const ctx = testContext();
    const config = resolveEngineConfig({ preset: 'balanced' });
    const a = await runStages([result(logLines(3000))], config.stages, ctx, { tools: config.tools });
    const [realId] = markerIds(a.results[0]?.content as string);
    expect(await ctx.store.stat(stashKey(realId as string))).not.toBeNull();
    // Output B starts with A's marker, and with A's whole shortened output too.
    for (const forged of [
      `<<sw:${realId}>>\n${logLines(30_000)}`,
      `${a.results[0]?.content}\n${logLines(30_000)}`,
    ]) {
      const run = await runStages([result(forged, { id: 'b' })], config.stages, ctx, {
        tools: config.tools,
      });
      expect(run.outcomes[0]?.actedBy).toContain('collapse');
      expect(getTokenizer('o200k').count(run.results[0]?.content as string)).toBeLessThanOrEqual(2000);
    }
  });

  it('collapses text that merely looks like a marker: an id that resolves nowhere is content', async () => {
    const forged = `see <<sw:abc>> and <<sw:${'Z'.repeat(22)}>>\n${Array.from({ length: 30_000 }, (_, i) => i + 1).join('\n')}`;
    const config = resolveEngineConfig({ preset: 'balanced' });
    const ctx = testContext();
    const run = await runStages([result(forged)], config.stages, ctx, { tools: config.tools });
    expect(run.outcomes[0]?.actedBy).toContain('collapse');
    expect(getTokenizer('o200k').count(run.results[0]?.content as string)).toBeLessThanOrEqual(2000);
  });

  it('exempts tools and applies per-tool budgets', async () => {
    const config = resolveEngineConfig({
      preset: 'balanced',
      tools: { Read: { exempt: true }, 'mcp__*': { maxTokens: 100 } },
    });
    const big = logLines(2000);
    const run = await runStages(
      [
        result(big, { id: 'a', tool: 'Read' }),
        result(`${big}\nb`, { id: 'b', tool: 'mcp__gh__issue', position: 1 }),
        result(`${big}\nc`, { id: 'c', tool: 'Bash', position: 2 }),
      ],
      config.stages,
      testContext(),
      { tools: config.tools },
    );
    expect(run.results[0]?.content).toBe(big);
    expect(run.stats.collapse?.declined?.exempt_tool).toBe(1);
    const o200k = getTokenizer('o200k');
    expect(o200k.count(run.results[1]?.content as string)).toBeLessThanOrEqual(100);
    expect(o200k.count(run.results[2]?.content as string)).toBeGreaterThan(100);
    expect(o200k.count(run.results[2]?.content as string)).toBeLessThanOrEqual(2000);
  });

  it('counts tokens before and after per stage', async () => {
    const run = await runStages([result(logLines(2000))], resolveEngineConfig().stages, testContext());
    const c = run.stats.collapse;
    expect(c?.acted).toBe(1);
    expect(c?.tokensBefore).toBe(getTokenizer('o200k').count(logLines(2000)));
    expect(c?.tokensAfter).toBe(getTokenizer('o200k').count(run.results[0]?.content as string));
  });
});

describe('cache safety', () => {
  it('leaves results in the cached prefix alone unless a decision was frozen for them', async () => {
    const big = logLines(2000);
    const run = await runStages(
      [result(big, { position: 0 }), result(big, { id: 'call_2', position: 4 })],
      resolveEngineConfig().stages,
      testContext({ cachedPrefix: 3 }),
    );
    expect(run.results[0]?.content).toBe(big);
    expect(run.stats.collapse?.declined?.cached_prefix).toBe(1);
    expect(run.results[1]?.content).not.toBe(big);
  });

  it('lets pure stages act on the prefix when the cache is provably cold', async () => {
    const dirty = '\x1b[32mok\x1b[0m';
    const warm = await runStages(
      [result(dirty)],
      resolveEngineConfig().stages,
      testContext({ cachedPrefix: 5 }),
    );
    expect(warm.results[0]?.content).toBe(dirty);
    const cold = await runStages(
      [result(dirty)],
      resolveEngineConfig().stages,
      testContext({ cachedPrefix: 5, coldCache: true }),
    );
    expect(cold.results[0]?.content).toBe('ok');
  });

  it('replays frozen decisions byte for byte on later turns, whatever the config says then', async () => {
    const store = new MemoryStore();
    const big = logLines(3000);
    const first = await runStages(
      [result(big, { id: 'c1', position: 1 })],
      resolveEngineConfig({ preset: 'balanced' }).stages,
      testContext({ store, frozen: new FrozenDecisions(store, 'sess') }),
    );
    const collapsed = first.results[0]?.content;
    expect(collapsed).not.toBe(big);
    // A later turn, a new process (fresh cache), and a different preset: the same bytes come back.
    const later = await runStages(
      [result(big, { id: 'c1', position: 1 }), result('new', { id: 'c2', position: 3 })],
      resolveEngineConfig({ preset: 'aggressive' }).stages,
      testContext({ store, cachedPrefix: 2, frozen: new FrozenDecisions(store, 'sess') }),
    );
    expect(later.results[0]?.content).toBe(collapsed);
    expect(later.outcomes[0]?.status).toBe('frozen');
    expect(later.frozenReplayed).toBe(1);
    // An unchanged result is frozen as unchanged: a looser config later does not touch it.
    const small = logLines(50);
    await runStages(
      [result(small, { id: 'c9', position: 5 })],
      resolveEngineConfig().stages,
      testContext({ store, cachedPrefix: 0, frozen: new FrozenDecisions(store, 'sess') }),
    );
    const tight = await runStages(
      [result(small, { id: 'c9', position: 5 })],
      resolveEngineConfig({ stages: [{ name: 'collapse', maxTokens: 10 }] }).stages,
      testContext({ store, cachedPrefix: 0, frozen: new FrozenDecisions(store, 'sess') }),
    );
    expect(tight.results[0]?.content).toBe(small);
  });

  it('removes a damaged frozen decision and decides again, so the session heals in one turn', async () => {
    const store = new MemoryStore();
    const big = logLines(3000);
    const run = async () => {
      const frozen = new FrozenDecisions(store, 'sess');
      const out = await runStages(
        [result(big, { id: 'c1', position: 1 })],
        resolveEngineConfig().stages,
        testContext({ store, frozen }),
      );
      await frozen.flush();
      return out;
    };
    const collapsed = (await run()).results[0]?.content;
    const [entry] = await store.list('sess');
    await store.put({ dir: 'sess', name: entry?.name as string }, Buffer.from('{"content":'));
    const healed = await run();
    expect(healed.results[0]?.content).toBe(collapsed);
    // The decision is whole again on disk: the next process replays it.
    const again = await run();
    expect(again.outcomes[0]?.status).toBe('frozen');
    expect(again.results[0]?.content).toBe(collapsed);
  });

  it('property: the runner never returns a result larger than its input', async () => {
    const contents = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3000 }),
      fc.integer({ min: 1, max: 300 }).map(logLines),
      fc.integer({ min: 1, max: 100 }).map(jsonLine),
      fc.integer({ min: 1, max: 100 }).map((n) => JSON.stringify(JSON.parse(jsonLine(n)), null, 2)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(contents, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('safe', 'balanced', 'aggressive'),
        async (texts, preset) => {
          const input = texts.map((t, i) => result(t, { id: `c${i}`, position: i }));
          const config = resolveEngineConfig({ preset: preset as 'safe' });
          const run = await runStages(input, config.stages, testContext());
          run.results.forEach((r, i) => {
            expect(contentBytes(r.content)).toBeLessThanOrEqual(contentBytes(input[i]?.content ?? ''));
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
