import { describe, expect, it } from 'vitest';
import { readTranscript } from './index.js';

const line = (role: string, content: object) =>
  JSON.stringify({ timestamp: '2026-11-30T10:00:00Z', role, content });

const LINES = [
  line('user', { type: 'text', text: 'why does test_charge fail?' }),
  line('assistant', { type: 'tool_use', tool_name: 'Bash', tool_id: 't1', input: { command: 'pytest' } }),
  line('assistant', { type: 'tool_use', tool_name: 'Read', tool_id: 't2', input: { file_path: 'a.py' } }),
  line('user', { type: 'tool_result', tool_id: 't1', output: '1 failed', is_error: true }),
  line('user', { type: 'tool_result', tool_id: 't2', content: [{ type: 'text', text: 'code' }] }),
  line('assistant', { type: 'text', text: 'Fixing.' }),
  line('assistant', { type: 'tool_use', tool_name: 'Bash', tool_id: 't3', input: { command: 'pytest' } }),
  line('user', { type: 'tool_result', tool_id: 't3', output: '1 passed' }),
];

describe('block-lines reader', () => {
  it('reads tool calls and results one block a line, paired by tool_id, a turn between calls', () => {
    const read = readTranscript(`${LINES.join('\n')}\n`, 'blocks.jsonl');
    expect(read.format).toBe('block-lines');
    const turns = read.conversations[0]?.turns;
    expect(turns?.map((t) => t.map((r) => [r.id, r.tool, r.content, r.isError ?? false]))).toEqual([
      [
        ['t1', 'Bash', '1 failed', true],
        ['t2', 'Read', [{ type: 'text', text: 'code' }], false],
      ],
      [['t3', 'Bash', '1 passed', false]],
    ]);
    expect(turns?.[0]?.[0]?.input).toEqual({ command: 'pytest' });
    expect(turns?.[1]?.[0]?.said).toBe('why does test_charge fail?\nFixing.');
  });

  it('is not taken for a file with no tool block, and says what it expected when forced', () => {
    const text = `${line('user', { type: 'text', text: 'hi' })}\n`;
    expect(() => readTranscript(text, 'x.jsonl')).toThrow(/not a transcript/);
    expect(() => readTranscript(text, 'x.jsonl', 'block-lines')).toThrow(/block-per-line transcript/);
  });
});
