import { runStages } from '../engine/runner.js';
import type { Stage, StageContext } from '../engine/types.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import type { Content } from '../text/blocks.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import type { ToolResult } from '../text/tool-result.js';

/** A context over a fresh memory store, o200k, nothing cached. */
export function testContext(overrides: Partial<StageContext> = {}): StageContext {
  return { store: new MemoryStore(), tokenizer: getTokenizer('o200k'), cachedPrefix: 0, ...overrides };
}

/** One tool result at a position. */
export function result(content: Content, extra: Partial<ToolResult> = {}): ToolResult {
  return {
    id: extra.id ?? 'call_1',
    tool: extra.tool ?? 'Bash',
    content,
    position: extra.position ?? 0,
    ...extra,
  };
}

/** Runs one stage over one result and returns its content and outcome. */
export async function runOne(
  stage: Stage,
  content: Content,
  ctx = testContext(),
  extra: Partial<ToolResult> = {},
) {
  const run = await runStages([result(content, extra)], [stage], ctx);
  return {
    content: run.results[0]?.content as Content,
    outcome: run.outcomes[0],
    stats: run.stats[stage.name],
    ctx,
  };
}

/** A realistic multi-line log of `lines` lines. */
export function logLines(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `2026-11-30T01:${String(i % 60).padStart(2, '0')}:00Z INFO worker-${i % 7} processed batch ${i} in ${(i * 37) % 1000} ms`,
  ).join('\n');
}

/** One line of dense JSON of about `items` records. */
export function jsonLine(items: number): string {
  return JSON.stringify({
    items: Array.from({ length: items }, (_, i) => ({
      id: i,
      name: `item-${i}`,
      tags: ['a', 'b'],
      price: (i * 1.37).toFixed(2),
      active: i % 2 === 0,
    })),
  });
}
