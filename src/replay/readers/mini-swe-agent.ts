import { SpillwayError } from '../../errors.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { parseDocument } from './json-lines.js';

function messagesOf(text: string): Record<string, unknown>[] | undefined {
  const value = parseDocument(text);
  const list = Array.isArray(value) ? value : asRecord(value)?.messages;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const messages = list.map(asRecord);
  if (messages.some((m) => !m || typeof m.role !== 'string')) return undefined;
  // A chat request with tool messages is an API body, not a mini-swe-agent trajectory.
  if (messages.some((m) => m?.role === 'tool')) return undefined;
  return messages as Record<string, unknown>[];
}

/**
 * mini-swe-agent trajectory: a list of chat messages (or `{messages: [...]}`) where every user
 * message after the first assistant one is the observation of the command before it.
 */
export const miniSweAgentReader: TranscriptReader = {
  format: 'mini-swe-agent',
  expects: 'a mini-swe-agent trajectory: a JSON list of {role, content} messages (or {"messages": [...]})',
  detect(text) {
    const messages = messagesOf(text);
    return messages?.some((m) => m.role === 'assistant') ?? false;
  },
  read(text, name) {
    const messages = messagesOf(text);
    if (!messages)
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `${name}: not a mini-swe-agent trajectory (expected a JSON list of {role, content} messages)`,
      );
    const turns: ToolResult[][] = [];
    let seenAssistant = false;
    messages.forEach((m, i) => {
      if (m.role === 'assistant') seenAssistant = true;
      else if (m.role === 'user' && seenAssistant) {
        const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
        turns.push([{ id: `step-${i}`, tool: 'bash', content, position: turns.length }]);
      }
    });
    return [{ id: name, turns }];
  },
};
