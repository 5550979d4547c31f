import { type CallTable, callInput, LatestWords, resultOf } from '../../formats/index.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { Conversation, TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, parseJsonLines } from './json-lines.js';

const CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

/**
 * Codex CLI rollout JSONL: `response_item` lines holding Responses items; `function_call` and
 * `custom_tool_call` name the tools, their `*_output` items carry the results. Outputs that
 * follow each other with nothing else between form one turn.
 */
export const codexReader: TranscriptReader = {
  format: 'codex',
  expects: 'Codex CLI rollout JSONL (lines with "type":"response_item" and a "payload" item)',
  detect(text) {
    return firstJsonLines(text).some((line) => line.type === 'response_item' || line.type === 'session_meta');
  },
  read(text, name) {
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    let current: ToolResult[] = [];
    let id = name;
    let model: string | undefined;
    for (const value of parseJsonLines(text, name)) {
      const line = asRecord(value);
      const payload = asRecord(line?.payload);
      if (!line || !payload) continue;
      if (line.type === 'session_meta') id = asString(payload.id) ?? id;
      if (line.type === 'turn_context') model = asString(payload.model) ?? model;
      if (line.type !== 'response_item') continue;
      const type = asString(payload.type) ?? '';
      if (type === 'message') words.hear(payload.role, payload.content);
      const callId = asString(payload.call_id);
      if (OUTPUTS.has(type) && callId) {
        const output = payload.output;
        const content = typeof output === 'string' ? output : JSON.stringify(output ?? '');
        current.push(resultOf(callId, calls, content, turns.length));
        continue;
      }
      if (current.length > 0) {
        turns.push(current);
        current = [];
      }
      if (CALLS.has(type) && callId)
        calls.set(callId, {
          name: asString(payload.name) ?? type,
          input: callInput(payload.arguments ?? payload.input ?? payload.action),
          said: words.now(),
        });
    }
    if (current.length > 0) turns.push(current);
    const conversation: Conversation = { id, turns, ...(model ? { model } : {}) };
    return [conversation];
  },
};
