import { describe, expect, it } from 'vitest';
import { readTranscript } from './index.js';

const at = '2026-11-30T10:00:00Z';
const EVENTS = [
  { id: 'ev1', type: 'user.message', processed_at: at, content: [{ type: 'text', text: 'fix the build' }] },
  { id: 'tu1', type: 'agent.tool_use', processed_at: at, name: 'bash', input: { command: 'npm test' } },
  { id: 'tu2', type: 'agent.mcp_tool_use', processed_at: at, name: 'search', input: { q: 'x' } },
  {
    id: 'ev2',
    type: 'agent.tool_result',
    processed_at: at,
    tool_use_id: 'tu1',
    content: [{ type: 'text', text: '1 failing' }],
    is_error: true,
  },
  {
    id: 'ev3',
    type: 'agent.mcp_tool_result',
    processed_at: at,
    mcp_tool_use_id: 'tu2',
    content: [{ type: 'text', text: 'found' }],
  },
  { id: 'ev4', type: 'agent.message', processed_at: at, content: [{ type: 'text', text: 'Fixing.' }] },
  { id: 'tu3', type: 'agent.custom_tool_use', processed_at: at, name: 'deploy', input: {} },
  {
    id: 'ev5',
    type: 'user.custom_tool_result',
    processed_at: at,
    custom_tool_use_id: 'tu3',
    content: [{ type: 'text', text: 'deployed' }],
  },
  { id: 'ev6', type: 'session.status_idle', processed_at: at, stop_reason: { type: 'end_turn' } },
];

describe('managed-agents reader', () => {
  const expected = [
    [
      ['tu1', 'bash', '1 failing', true],
      ['tu2', 'search', 'found', false],
    ],
    [['tu3', 'deploy', 'deployed', false]],
  ];
  const shape = (text: string) => {
    const read = readTranscript(text, 'events');
    expect(read.format).toBe('managed-agents');
    return read.conversations[0]?.turns.map((t) =>
      t.map((r) => [r.id, r.tool, (r.content as unknown as { text: string }[])[0]?.text, r.isError ?? false]),
    );
  };

  it('reads the event stream saved as JSONL', () => {
    expect(shape(`${EVENTS.map((e) => JSON.stringify(e)).join('\n')}\n`)).toEqual(expected);
  });

  it('reads events a logger wrapped under "raw"', () => {
    const wrapped = EVENTS.map((e, i) => {
      const { processed_at: _at, ...event } = e;
      return JSON.stringify({ raw: event, received_at: at, seq: i });
    });
    expect(shape(`${wrapped.join('\n')}\n`)).toEqual(expected);
  });

  it('reads the events list as the API returns it', () => {
    expect(shape(JSON.stringify({ data: EVENTS, next_page: null }, null, 2))).toEqual(expected);
  });
});
