import { describe, expect, it } from 'vitest';
import { readTranscript } from './index.js';

const jsonl = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
const at = '2026-11-30T10:00:00.000Z';
const call = (id: string, name: string, output: string, status = 'success') => ({
  id,
  name,
  args: { command: id },
  status,
  timestamp: at,
  result: [{ functionResponse: { id, name, response: { output } } }],
});

describe('gemini-chat reader (saved sessions and checkpoints)', () => {
  it('reads a chats/session-*.jsonl: last version of each message, rewinds honoured', () => {
    const text = jsonl([
      { sessionId: 'sess-9', projectHash: 'abc', startTime: at, lastUpdated: at, kind: 'main' },
      { id: 'm1', timestamp: at, type: 'user', content: [{ text: 'go' }] },
      {
        id: 'm2',
        timestamp: at,
        type: 'gemini',
        content: [],
        model: 'gemini-2.5-flash',
        toolCalls: [{ ...call('c1', 'run_shell_command', 'x'), result: null }],
      },
      // The same message again once its tool ran: the later record wins.
      {
        id: 'm2',
        timestamp: at,
        type: 'gemini',
        content: [],
        model: 'gemini-2.5-flash',
        toolCalls: [call('c1', 'run_shell_command', 'build ok')],
      },
      {
        id: 'm3',
        timestamp: at,
        type: 'gemini',
        content: [],
        toolCalls: [call('c2', 'read_file', 'secret')],
      },
      { $rewindTo: 'm3' },
      {
        id: 'm4',
        timestamp: at,
        type: 'gemini',
        content: [],
        toolCalls: [call('c3', 'glob', 'a.ts', 'error')],
      },
      { $set: { summary: 'built' } },
    ]);
    const { format, conversations } = readTranscript(text, 'session-1.jsonl');
    expect(format).toBe('gemini-chat');
    const [c] = conversations;
    expect(c?.id).toBe('sess-9');
    expect(c?.model).toBe('gemini-2.5-flash');
    expect(c?.turns.map((t) => t.map((r) => [r.id, r.tool, r.content, r.isError ?? false]))).toEqual([
      [['c1', 'run_shell_command', 'build ok', false]],
      [['c3', 'glob', 'a.ts', true]],
    ]);
  });

  it('reads the older .json form and a /chat save checkpoint', () => {
    const legacy = JSON.stringify({
      sessionId: 'old-1',
      projectHash: 'p',
      startTime: at,
      lastUpdated: at,
      messages: [
        { id: 'g', timestamp: at, type: 'gemini', content: 'ok', toolCalls: [call('c9', 'ls', 'one\ntwo')] },
      ],
    });
    expect(readTranscript(legacy, 'session.json').conversations[0]?.turns[0]?.[0]).toMatchObject({
      id: 'c9',
      tool: 'ls',
      content: 'one\ntwo',
    });
    const checkpoint = JSON.stringify([
      { role: 'user', parts: [{ text: 'go' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'f1', name: 'run_shell_command', args: { command: 'make' } } }],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'f1', name: 'run_shell_command', response: { output: 'make: done' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'Done.' }] },
    ]);
    const read = readTranscript(checkpoint, 'checkpoint-x.json');
    expect(read.format).toBe('gemini-chat');
    expect(read.conversations[0]?.turns).toEqual([
      [
        {
          id: 'f1',
          tool: 'run_shell_command',
          content: 'make: done',
          position: 0,
          input: { command: 'make' },
          said: 'go',
        },
      ],
    ]);
  });
});
