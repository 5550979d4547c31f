import { describe, expect, it } from 'vitest';
import { explainCollapse } from './collapse/index.js';
import * as engine from './engine/index.js';
import * as root from './index.js';
import { startProxy } from './proxy/index.js';
import { replayConversation } from './replay/index.js';
import { MemoryStore } from './store/index.js';
import type { ToolResult } from './text/index.js';
import { getTokenizer } from './text/tokenizers/index.js';

// The engine config was called the pipeline: users' code written against those names keeps
// working, each former name the same value as its new one, and the former option key accepted
// (the new one wins when both are given).
const log = Array.from({ length: 3000 }, (_, i) => `step ${i}: compiled module-${i}.ts`).join('\n');
const result: ToolResult = { id: 't1', tool: 'Bash', content: log, position: 1 };

describe("the engine config's former names", () => {
  it('are the new exports under their old names, at the root and in spillway/engine', () => {
    for (const m of [root, engine]) {
      expect(m.resolvePipeline).toBe(m.resolveEngineConfig);
      expect(m.runPipeline).toBe(m.runStages);
    }
    expect(engine.PipelineConfigSchema).toBe(engine.EngineConfigSchema);
    expect(root.pipelinePruner).toBe(root.enginePruner);
  });

  it('take the engine config under `pipeline`, and `config` wins over it', async () => {
    const safe = root.resolveEngineConfig({ preset: 'safe' });
    const off = root.resolveEngineConfig({ preset: 'off' });
    const old = new root.ConversationEngine({ pipeline: safe, store: new MemoryStore() });
    expect(old.config).toBe(safe);
    expect(old.pipeline).toBe(safe);
    const both = new root.ConversationEngine({ config: off, pipeline: safe, store: new MemoryStore() });
    expect(both.config).toBe(off);
    const turn = await both.turn({ results: [result], messageCount: 2 });
    expect(turn.results[0]?.content).toBe(log);

    const replay = await replayConversation({ id: 'r', turns: [[result]] }, { pipeline: safe });
    expect(replay.results[0]?.tokensAfter).toBeLessThan(replay.results[0]?.tokensBefore ?? 0);
  });

  it('start the proxy with `pipeline`, and name what it runs under both names', async () => {
    const safe = root.resolveEngineConfig({ preset: 'safe' });
    const proxy = await startProxy({ pipeline: safe, store: new MemoryStore(), port: 0, log: () => {} });
    try {
      expect(proxy.config).toBe(safe);
      expect(proxy.pipeline).toBe(safe);
    } finally {
      await proxy.close();
    }
  });
});

describe("explain's former option name", () => {
  it('takes the budget as `maxTokens`, `budget` winning, and reports it under both names', async () => {
    const tokenizer = getTokenizer('o200k');
    const old = await explainCollapse(log, { tokenizer, maxTokens: 300 });
    expect(old).toMatchObject({ budget: 300, maxTokens: 300 });
    expect(old.tokensAfter).toBeLessThanOrEqual(300);
    const both = await explainCollapse(log, { tokenizer, budget: 600, maxTokens: 300 });
    expect(both).toMatchObject({ budget: 600, maxTokens: 600 });
    expect(both.tokensAfter).toBeGreaterThan(300);
  });
});
