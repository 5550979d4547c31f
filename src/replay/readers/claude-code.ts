import { type CallTable, resultOf } from '../../formats/shared.js';
import type { Content, ContentBlock } from '../../text/blocks.js';
import { asRecord } from '../../text/json-values.js';
import type { ToolResult } from '../../text/tool-result.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, parseJsonLines } from './json-lines.js';

/**
 * Claude Code session JSONL: `message.content[]` with `tool_use` blocks in assistant lines and
 * `tool_result` blocks in user lines. Each user line carrying results is one turn.
 */
export const claudeCodeReader: TranscriptReader = {
  format: 'claude-code',
  expects:
    'Claude Code session JSONL (lines with "type":"user"/"assistant" and a "message" whose content has tool_use/tool_result blocks)',
  detect(text) {
    return firstJsonLines(text).some(
      (line) => (line.type === 'user' || line.type === 'assistant') && asRecord(line.message) !== undefined,
    );
  },
  read(text, name) {
    const calls: CallTable = new Map();
    const turns: ToolResult[][] = [];
    let model: string | undefined;
    let id = name;
    for (const value of parseJsonLines(text, name)) {
      const line = asRecord(value);
      const message = asRecord(line?.message);
      if (!line || !message) continue;
      id = asString(line.sessionId) ?? id;
      const content = message.content;
      if (!Array.isArray(content)) continue;
      if (line.type === 'assistant') {
        // Placeholders (`<synthetic>` on messages the client made itself) are not the model.
        model = realModel(asString(message.model)) ?? model;
        for (const block of content) {
          const b = asRecord(block);
          if (b?.type === 'tool_use' && typeof b.id === 'string')
            calls.set(b.id, { name: asString(b.name) ?? '', input: b.input });
        }
        continue;
      }
      const turn: ToolResult[] = [];
      for (const block of content) {
        const b = asRecord(block);
        if (b?.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
        const raw = b.content;
        const result: Content =
          typeof raw === 'string' ? raw : Array.isArray(raw) ? (raw as ContentBlock[]) : '';
        turn.push(resultOf(b.tool_use_id, calls, result, turns.length, b.is_error === true));
      }
      if (turn.length > 0) turns.push(turn);
    }
    return [{ id, ...(model ? { model } : {}), turns }];
  },
};

function realModel(name: string | undefined): string | undefined {
  return name && !/^<.*>$/.test(name.trim()) ? name : undefined;
}
