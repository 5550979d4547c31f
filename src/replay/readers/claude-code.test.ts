import { describe, expect, it, vi } from 'vitest';
import { readTranscript } from './index.js';

const RECORDS = [
  { type: 'user', sessionId: 's-1', message: { role: 'user', content: 'go' } },
  {
    type: 'assistant',
    sessionId: 's-1',
    message: {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
    },
  },
  {
    type: 'user',
    sessionId: 's-1',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a\nb' }] },
  },
];
const TURNS = [
  [{ id: 'toolu_1', tool: 'Bash', content: 'a\nb', position: 0, input: { command: 'ls' }, said: 'go' }],
];

describe('claude-code reader inside archive envelopes', () => {
  it('reads each record wrapped in a line envelope', () => {
    const wrapped = RECORDS.map((r, i) => JSON.stringify({ ts: i, archived: { entry: r } })).join('\n');
    const read = readTranscript(`${wrapped}\n`, 'archive.jsonl');
    expect(read.format).toBe('claude-code');
    expect(read.conversations[0]).toMatchObject({ id: 's-1', model: 'claude-sonnet-4-5', turns: TURNS });
  });

  it('reads a whole session held in one JSON document', () => {
    const doc = JSON.stringify({ exportedAt: 'today', messages: RECORDS }, null, 2);
    expect(readTranscript(doc, 'export.json').conversations[0]?.turns).toEqual(TURNS);
    expect(readTranscript(JSON.stringify(RECORDS), 'list.json').conversations[0]?.turns).toEqual(TURNS);
  });

  it("leaves out the copies of subagent messages inside Claude Code's own progress lines", () => {
    const progress = { type: 'progress', data: { message: RECORDS[2] } };
    const text = `${[...RECORDS, progress].map((r) => JSON.stringify(r)).join('\n')}\n`;
    expect(readTranscript(text, 's.jsonl').conversations[0]?.turns).toHaveLength(1);
  });

  it('rejects what no reader knows after reading only the first lines', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ metric: 'cpu', value: i }));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(() => readTranscript(`${lines.join('\n')}\n`, 'metrics.jsonl')).toThrow(
        /not a transcript spillway can read/,
      );
      // A few lines per reader, never the 20,000.
      expect(parse.mock.calls.length).toBeLessThan(400);
    } finally {
      parse.mockRestore();
    }
  });
});
