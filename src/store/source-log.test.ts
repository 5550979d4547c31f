import { describe, expect, it } from 'vitest';
import { MemoryStore } from './backends/memory-store.js';
import { readAtSource, recordAtSource, type SourceRecord } from './source-log.js';

const record = (at: string, by: string, whole: number, shown: number): SourceRecord => ({
  at,
  by,
  how: by === 'codex' || by === 'gemini' ? 'note' : 'collapse',
  whole,
  shown,
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
});

describe('the at-source log', () => {
  it('sums what the hooks and spillway run did over the days asked, by client; a torn line is skipped', async () => {
    const store = new MemoryStore();
    await recordAtSource(store, record('2026-12-02T10:00:00.000Z', 'claude', 1000, 500)); // three days back
    await recordAtSource(store, record('2026-12-03T23:59:00.000Z', 'codex', 155_274, 5_000));
    await recordAtSource(store, record('2026-12-04T08:00:00.000Z', 'run', 40_000, 1_800));
    await recordAtSource(store, record('2026-12-04T09:00:00.000Z', 'codex', 20_000, 3_000));
    // A crash mid-append leaves a torn last record.
    await store.append({ dir: 'at-source', name: '2026-12-04' }, Buffer.from('{"at":"2026-12-04T10:00'));
    const summary = await readAtSource(store, { days: 2, now: new Date('2026-12-04T12:00:00Z') });
    expect(summary).toMatchObject({ outputs: 3, whole: 215_274, shown: 9_800 });
    expect(summary.byClient).toEqual({
      codex: { outputs: 2, whole: 175_274, shown: 8_000 },
      run: { outputs: 1, whole: 40_000, shown: 1_800 },
    });
    expect(summary.recent.map((r) => r.by)).toEqual(['codex', 'run', 'codex']);
    expect((await readAtSource(new MemoryStore(), { days: 2, now: new Date() })).outputs).toBe(0);
  });
});
