import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapse, collapseOutput } from '../collapse/index.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import { buildLog } from '../test-support/build-log.js';
import { resolveEngineConfig } from './config.js';
import { ConversationEngine } from './conversation.js';

// Lines of a run: most alike, some that matter, a JSON line now and then.
const line = fc.oneof(
  { weight: 6, arbitrary: fc.nat(5000).map((n) => `ok ${n} checked src/module_${n % 97}.ts`) },
  { weight: 1, arbitrary: fc.nat(500).map((n) => `Error: expected ${n} but got ${n + 1}`) },
  { weight: 1, arbitrary: fc.nat(50).map((n) => `FAILED test_${n} - AssertionError`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
  {
    weight: 1,
    arbitrary: fc.nat(40).map((n) => JSON.stringify({ items: Array.from({ length: n }, (_, i) => i) })),
  },
);
const output = fc.array(line, { minLength: 1, maxLength: 900 }).map((lines) => lines.join('\n'));
const call = fc.constantFrom(
  { tool: 'Bash', input: { command: 'npm test -- test_7' } },
  { tool: 'Read', input: { file_path: 'src/app.ts' } },
  { tool: 'shell', input: { command: ['bash', '-lc', 'cat build.log'] } },
  { tool: 'grep', input: { pattern: 'Error' } },
);

/** The engine's collapse stage alone on one result: what the door replaced. */
async function throughEngine(text: string, budget: number, c: { tool: string; input: unknown }) {
  const config = resolveEngineConfig({ stages: [{ name: 'collapse', maxTokens: budget }] });
  const store = new MemoryStore();
  const turn = await new ConversationEngine({ config, store }).turn({
    results: [{ id: 'r1', content: text, position: 0, ...c }],
    messageCount: 1,
  });
  const outcome = turn.outcomes[0];
  return { text: turn.results[0]?.content, id: outcome?.stashId, tokensAfter: outcome?.tokensAfter, store };
}

describe('the one door to collapse one output', () => {
  it('property: the door and the engine give the same bytes for the same output, call and budget', async () => {
    await fc.assert(
      fc.asyncProperty(output, fc.integer({ min: 50, max: 2500 }), call, async (text, budget, c) => {
        const store = new MemoryStore();
        const door = await collapseOutput(text, { store, budget, measure: true, ...c });
        const engine = await throughEngine(text, budget, c);
        expect(door.text).toBe(engine.text);
        expect(door.id).toBe(engine.id);
        expect(door.tokensAfter).toBe(engine.tokensAfter);
        if (door.id !== undefined)
          expect(await recallAll(door.id, { store })).toEqual(
            await recallAll(door.id, { store: engine.store }),
          );
      }),
      { numRuns: 40 },
    );
  });

  it('leaves spillway its own output: a collapse given back is not collapsed again', async () => {
    const store = new MemoryStore();
    const first = await collapseOutput(buildLog().text, { store, budget: 800, tool: 'Bash' });
    expect(first.step).toBe('acted');
    const again = await collapseOutput(first.text, { store, budget: 300, tool: 'Bash' });
    expect(again).toMatchObject({ step: 'already_marked', text: first.text });
    // The root's collapse goes through the same door.
    expect(await collapse(first.text, { tokens: 300, store })).toEqual({
      collapsed: false,
      text: first.text,
    });
    // In another store the same text is only text with markers in it.
    expect((await collapseOutput(first.text, { store: new MemoryStore(), budget: 300 })).step).toBe('acted');
  });

  it('stashes the bytes as read, not their decoding', async () => {
    const store = new MemoryStore();
    const raw = Buffer.concat([
      Buffer.from('x\n'.repeat(4000)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('\nerror: boom\n'),
    ]);
    const out = await collapseOutput(raw, { store, budget: 200 });
    expect(out.step).toBe('acted');
    expect(out.text).toContain('error: boom');
    expect(Buffer.compare(await recallAll(out.id as string, { store }), raw)).toBe(0);
  });
});
