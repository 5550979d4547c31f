import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../store/backends/memory-store.js';
import { recallAll } from '../../../store/recall/recall.js';
import { markerIds, RERUN_PREFIX } from '../../../text/markers.js';
import type { ToolResult } from '../../../text/tool-result.js';
import { resolveEngineConfig } from '../../config.js';
import { ConversationEngine } from '../../conversation.js';
import { readRerunDiff } from './diff.js';

const bash = (id: string, command: string, position: number, content: string): ToolResult => ({
  id,
  tool: 'Bash',
  content,
  position,
  input: { command },
});
const suite = (failing: number[]) =>
  Array.from({ length: 60 }, (_, i) =>
    failing.includes(i)
      ? `tests/test_pay.py::test_case_${i} FAILED`
      : `tests/test_pay.py::test_case_${i} PASSED`,
  ).join('\n');
// Only rerun: what is measured is this stage, not collapse after it.
const engine = (store = new MemoryStore()) =>
  new ConversationEngine({ config: resolveEngineConfig({ stages: ['rerun'] }), store, session: 's' });

describe('rerun', () => {
  it('shows a rerun as what changed, both runs recallable whole', async () => {
    const store = new MemoryStore();
    const first = suite([7, 31]);
    const second = suite([31]);
    const turn = await engine(store).turn({
      results: [bash('c1', 'pytest -q', 1, first), bash('c2', 'pytest -q', 3, second)],
      messageCount: 4,
    });
    expect(turn.results[0]?.content).toBe(first);
    const diff = turn.results[1]?.content as string;
    const [header, ...body] = diff.split('\n');
    expect(header?.startsWith(`${RERUN_PREFIX}\`pytest -q\` (earlier: call c1): 53 of 60 lines`)).toBe(true);
    // The failure still there is shown though unchanged, and the last lines.
    expect(body).toEqual([
      '[lines 1-7 as lines 1-7 of the earlier run]',
      'tests/test_pay.py::test_case_7 PASSED',
      '[lines 9-31 as lines 9-31 of the earlier run]',
      'tests/test_pay.py::test_case_31 FAILED',
      '[lines 33-55 as lines 33-55 of the earlier run]',
      ...second.split('\n').slice(55),
    ]);
    const id = markerIds(diff)[0] as string;
    expect((await recallAll(id, { store })).toString()).toBe(second);
    const earlierId = /id (\S+) the earlier one/.exec(header ?? '')?.[1] as string;
    expect((await recallAll(earlierId, { store })).toString()).toBe(first);
  });

  it('never compares different commands, nor an output that mostly changed', async () => {
    const other = await engine().turn({
      results: [bash('c1', 'pytest -q', 1, suite([7])), bash('c2', 'pytest -q tests/', 3, suite([]))],
      messageCount: 4,
    });
    expect(other.results[1]?.content).toBe(suite([]));
    expect(other.outcomes[1]?.trail).toContainEqual({ stage: 'rerun', outcome: 'not_a_rerun' });
    const changed = suite([]).replace(/PASSED/g, 'SKIPPED');
    const mostly = await engine().turn({
      results: [bash('c1', 'pytest -q', 1, suite([])), bash('c2', 'pytest -q', 3, changed)],
      messageCount: 4,
    });
    expect(mostly.results[1]?.content).toBe(changed);
    expect(mostly.outcomes[1]?.trail).toContainEqual({ stage: 'rerun', outcome: 'mostly_changed' });
  });

  it('is off in safe, on in balanced and aggressive', () => {
    const names = (preset: 'safe' | 'balanced' | 'aggressive') =>
      resolveEngineConfig({ preset }).stages.map((s) => s.name);
    expect(names('safe')).not.toContain('rerun');
    expect(names('balanced')).toContain('rerun');
    expect(names('aggressive')).toContain('rerun');
  });

  it('property: a rerun never loses a line (read back with the earlier run, or recalled, it is the output) and never fires across commands', async () => {
    const line = fc.constantFrom('ok', 'FAIL a', 'PASS b', '', '}', 'x 1', 'warning: y', 'é', 'step');
    const output = fc.array(line, { minLength: 40, maxLength: 120 }).map((l) => l.join('\n'));
    const edits = fc.array(fc.tuple(fc.nat(200), line), { maxLength: 10 });
    await fc.assert(
      fc.asyncProperty(output, edits, fc.boolean(), async (earlier, changes, sameCommand) => {
        const lines = earlier.split('\n');
        for (const [at, text] of changes) lines[at % lines.length] = text;
        const now = lines.join('\n');
        const store = new MemoryStore();
        const config = resolveEngineConfig({ stages: [{ name: 'rerun', minBytes: 0 }] });
        const conversation = new ConversationEngine({ config, store, session: 'p' });
        const turn = await conversation.turn({
          results: [bash('c1', 'make', 1, earlier), bash('c2', sameCommand ? 'make' : 'make all', 3, now)],
          messageCount: 4,
        });
        const shown = turn.results[1]?.content as string;
        if (!sameCommand) expect(shown).toBe(now);
        if (shown === now) return;
        const body = shown.slice(shown.indexOf('\n') + 1);
        expect(readRerunDiff(body, earlier)).toBe(now);
        expect((await recallAll(markerIds(shown)[0] as string, { store })).toString()).toBe(now);
      }),
      { numRuns: 300 },
    );
  });
});
