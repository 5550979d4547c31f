import {
  type CallTable,
  type InputUsage,
  inputUsageOf,
  LatestWords,
  resultOf,
  totalInput,
} from '../../formats/index.js';
import { asRecord, type Content, type ContentBlock, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, parseDocument, recordsOf } from './json-lines.js';

type Rec = Record<string, unknown>;
const isRecord = (r: Rec) =>
  (r.type === 'user' || r.type === 'assistant') && asRecord(r.message) !== undefined;

/**
 * The Claude Code record in a line: the line itself, or the one an archiving tool wrapped in an
 * envelope (a field holding it, up to two levels down: `{"entry": {...}}`, `{"data": {"record": ...}}`).
 */
function claudeRecord(value: unknown, depth = 0): Rec | undefined {
  const r = asRecord(value);
  if (!r) return undefined;
  if (isRecord(r)) return r;
  // A line of Claude Code's own (progress, summary, ...) is not an envelope: the copies of
  // subagent messages inside its progress lines are not this session's.
  if (depth >= 2 || (depth === 0 && typeof r.type === 'string')) return undefined;
  for (const v of Object.values(r)) {
    const found = typeof v === 'object' ? claudeRecord(v, depth + 1) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** Keys under which archives keep a whole session's records in one JSON document. */
const ARCHIVE_KEYS = ['messages', 'entries', 'records', 'events', 'data', 'lines', 'transcript'];

/**
 * Claude Code session JSONL: `message.content[]` with `tool_use` blocks in assistant lines and
 * `tool_result` blocks in user lines. Each user line carrying results is one turn. The same
 * records inside an archive's envelope (each line wrapped, or all of them in one JSON document)
 * read the same.
 */
export const claudeCodeReader: TranscriptReader = {
  format: 'claude-code',
  expects:
    'Claude Code session JSONL (lines with "type":"user"/"assistant" and a "message" whose content has tool_use/tool_result blocks)',
  detect(text) {
    const lines = firstJsonLines(text);
    if (lines.some((line) => claudeRecord(line))) return true;
    if (lines.length > 1) return false;
    const doc = parseDocument(text);
    const list = Array.isArray(doc) ? doc : ARCHIVE_KEYS.map((k) => asRecord(doc)?.[k]).find(Array.isArray);
    return Array.isArray(list) && list.slice(0, 20).some((r) => claudeRecord(r));
  },
  read(text, name) {
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    const otherText: string[] = [];
    const providerTokens: (number | undefined)[] = [];
    const providerUsage: (InputUsage | undefined)[] = [];
    let pending = '';
    let model: string | undefined;
    let id = name;
    for (const value of recordsOf(text, name, ARCHIVE_KEYS)) {
      const line = claudeRecord(value);
      const message = asRecord(line?.message);
      if (!line || !message) continue;
      id = asString(line.sessionId) ?? id;
      const content = message.content;
      words.hear(line.type, content);
      if (typeof content === 'string') pending += `${content}\n`;
      if (!Array.isArray(content)) continue;
      pending += textOfBlocks(content);
      if (line.type === 'assistant') {
        // The first answer after a turn reports the size of the request that carried it.
        if (turns.length > 0 && providerTokens[turns.length - 1] === undefined) {
          const usage = inputUsageOf(message);
          const total = usage ? totalInput(usage) : 0;
          providerTokens[turns.length - 1] = total || undefined;
          providerUsage[turns.length - 1] = total ? usage : undefined;
        }
        // Placeholders (`<synthetic>` on messages the client made itself) are not the model.
        model = realModel(asString(message.model)) ?? model;
        for (const block of content) {
          const b = asRecord(block);
          if (b?.type === 'tool_use' && typeof b.id === 'string')
            calls.set(b.id, { name: asString(b.name) ?? '', input: b.input, said: words.now() });
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
      if (turn.length > 0) {
        turns.push(turn);
        otherText.push(pending);
        providerTokens.push(undefined);
        providerUsage.push(undefined);
        pending = '';
      }
    }
    return [{ id, ...(model ? { model } : {}), turns, otherText, providerTokens, providerUsage }];
  },
};

function realModel(name: string | undefined): string | undefined {
  return name && !/^<.*>$/.test(name.trim()) ? name : undefined;
}

/** The text a request carries in these blocks besides tool results: text, and tool calls' names and arguments. */
function textOfBlocks(blocks: readonly unknown[]): string {
  let text = '';
  for (const block of blocks) {
    const b = asRecord(block);
    if (b?.type === 'text' && typeof b.text === 'string') text += `${b.text}\n`;
    else if (b?.type === 'tool_use') text += `${asString(b.name) ?? ''} ${JSON.stringify(b.input ?? {})}\n`;
  }
  return text;
}
