import { type CallTable, LatestWords, resultOf } from '../../formats/index.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, nothingFits, parseJsonLines } from './json-lines.js';

const EXPECTS =
  'Gemini CLI stream-json output (JSONL events: "type":"init" with session_id and model, "tool_use" with tool_id, "tool_result" with tool_id and output)';

const isEvent = (line: Record<string, unknown>) =>
  (line.type === 'init' && (typeof line.session_id === 'string' || typeof line.sessionId === 'string')) ||
  ((line.type === 'tool_use' || line.type === 'tool_result') && typeof line.tool_id === 'string');

/**
 * Gemini CLI's `--output-format stream-json`: `tool_use` events (tool_name, tool_id,
 * parameters) and `tool_result` events (tool_id, status, output or error). The results that come
 * back between two model turns (a message or a new tool call) are one turn.
 */
export const geminiCliReader: TranscriptReader = {
  format: 'gemini-cli',
  expects: EXPECTS,
  detect(text) {
    return firstJsonLines(text).some(isEvent);
  },
  read(text, name) {
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    let turn: ToolResult[] = [];
    let model: string | undefined;
    let id = name;
    let events = 0;
    let reply = '';
    const close = () => {
      if (turn.length > 0) turns.push(turn);
      turn = [];
    };
    for (const value of parseJsonLines(text, name)) {
      const line = asRecord(value);
      if (!line || !isEvent(line)) {
        if (line?.type === 'message' && typeof line.content === 'string') {
          // The answer streams in deltas: what it said is their sum.
          reply = line.role === 'assistant' && line.delta === true ? reply + line.content : line.content;
          words.hear(line.role, reply);
        }
        if (line?.type === 'message' && line.role === 'assistant') close();
        continue;
      }
      events++;
      reply = '';
      if (line.type === 'init') {
        id = asString(line.session_id) ?? asString(line.sessionId) ?? id;
        model = asString(line.model) ?? model;
      } else if (line.type === 'tool_use') {
        close();
        calls.set(line.tool_id as string, {
          name: asString(line.tool_name) ?? '',
          input: line.parameters,
          said: words.now(),
        });
      } else {
        const error = asRecord(line.error);
        const output = asString(line.output) ?? asString(error?.message) ?? '';
        turn.push(resultOf(line.tool_id as string, calls, output, turns.length, line.status === 'error'));
      }
    }
    close();
    if (events === 0) throw nothingFits(name, EXPECTS, text);
    return [{ id, ...(model ? { model } : {}), turns }];
  },
};
