import { describe, expect, it } from 'vitest';
import { readTranscript } from './index.js';

const jsonl = (events: unknown[]) => `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
const at = '2026-11-30T10:00:00.000Z';

describe('gemini-cli (stream-json) reader', () => {
  it('reads tool uses and results, a turn per model turn, with errors and the session', () => {
    const text = jsonl([
      { type: 'init', timestamp: at, session_id: 'gem-1', model: 'gemini-2.5-pro' },
      { type: 'message', timestamp: at, role: 'user', content: 'list and build' },
      {
        type: 'tool_use',
        timestamp: at,
        tool_name: 'run_shell_command',
        tool_id: 't1',
        parameters: { command: 'ls' },
      },
      {
        type: 'tool_use',
        timestamp: at,
        tool_name: 'read_file',
        tool_id: 't2',
        parameters: { absolute_path: '/a.ts' },
      },
      { type: 'tool_result', timestamp: at, tool_id: 't1', status: 'success', output: 'a.ts\nb.ts' },
      { type: 'tool_result', timestamp: at, tool_id: 't2', status: 'success', output: 'export {}' },
      { type: 'message', timestamp: at, role: 'assistant', content: 'Building.', delta: true },
      {
        type: 'tool_use',
        timestamp: at,
        tool_name: 'run_shell_command',
        tool_id: 't3',
        parameters: { command: 'tsc' },
      },
      {
        type: 'tool_result',
        timestamp: at,
        tool_id: 't3',
        status: 'error',
        error: { type: 'EXIT', message: 'error TS2304' },
      },
      { type: 'result', timestamp: at, status: 'success', stats: { total_tokens: 10 } },
    ]);
    const { format, conversations } = readTranscript(text, 'run.jsonl');
    expect(format).toBe('gemini-cli');
    const [c] = conversations;
    expect(c?.id).toBe('gem-1');
    expect(c?.model).toBe('gemini-2.5-pro');
    expect(c?.turns.map((t) => t.map((r) => [r.id, r.tool, r.content]))).toEqual([
      [
        ['t1', 'run_shell_command', 'a.ts\nb.ts'],
        ['t2', 'read_file', 'export {}'],
      ],
      [['t3', 'run_shell_command', 'error TS2304']],
    ]);
    expect(c?.turns[1]?.[0]?.isError).toBe(true);
    expect(c?.turns[0]?.[0]?.input).toEqual({ command: 'ls' });
  });

  it('forced on another file, names what it expected and the first line', () => {
    expect(() =>
      readTranscript('{"type":"user","message":{"content":[]}}\n', 'x.jsonl', 'gemini-cli'),
    ).toThrow(
      /x\.jsonl: not Gemini CLI stream-json output .*; line 1 does not fit \(it starts: \{"type":"user"/,
    );
  });
});
