import { SpillwayError } from '../../errors.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { Conversation, TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, parseJsonLines } from './json-lines.js';

// Observations that are bookkeeping, not a tool's output.
const NOT_TOOL_OUTPUT = new Set([
  'agent_state_changed',
  'null',
  'recall',
  'message',
  'user_rejected',
  'agent_condensation',
]);

function metadata(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'string') {
    try {
      return asRecord(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  return asRecord(value);
}

/**
 * OpenHands `output.jsonl`: one evaluated instance a line, each with a `history` of action and
 * observation events. Each observation with content is a turn; its tool is the function named
 * in `tool_call_metadata`, else the observation type.
 */
export const openHandsReader: TranscriptReader = {
  format: 'openhands',
  expects:
    'OpenHands output.jsonl (one instance a line, each with a "history" list of action/observation events)',
  detect(text) {
    const lines = firstJsonLines(text, 2);
    return lines.length > 0 && lines.every((line) => Array.isArray(line.history));
  },
  read(text, name) {
    const conversations: Conversation[] = [];
    parseJsonLines(text, name).forEach((value, index) => {
      const line = asRecord(value);
      if (!line || !Array.isArray(line.history)) {
        throw new SpillwayError('SPILLWAY_BAD_INPUT', `${name}: instance ${index + 1} has no "history" list`);
      }
      const turns: ToolResult[][] = [];
      line.history.forEach((event, i) => {
        const e = asRecord(event);
        const kind = asString(e?.observation);
        if (!e || !kind || NOT_TOOL_OUTPUT.has(kind) || typeof e.content !== 'string') return;
        const meta = metadata(e.tool_call_metadata);
        turns.push([
          {
            id: asString(meta?.tool_call_id) ?? `event-${asString(e.id) ?? i}`,
            tool: asString(meta?.function_name) ?? kind,
            content: e.content,
            position: turns.length,
          },
        ]);
      });
      const model = asString(asRecord(asRecord(line.metadata)?.llm_config)?.model);
      conversations.push({
        id: asString(line.instance_id) ?? `${name}#${index + 1}`,
        ...(model ? { model } : {}),
        turns,
      });
    });
    return conversations;
  },
};
