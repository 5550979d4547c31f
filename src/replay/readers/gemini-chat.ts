import { type CallTable, functionResponseText, geminiAdapter, resultOf } from '../../formats/index.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { Conversation, TranscriptReader } from '../transcript.js';
import { turnsByMessage } from './api-body.js';
import { asString, firstJsonLines, nothingFits, parseDocument, parseJsonLines } from './json-lines.js';

const EXPECTS =
  'a Gemini CLI saved chat (chats/session-*.jsonl records or .json with "sessionId" and "messages", whose "gemini" messages have toolCalls) or checkpoint (a JSON list of contents with functionCall/functionResponse parts)';

type Rec = Record<string, unknown>;
const isMessage = (r: Rec) => typeof r.id === 'string' && (r.type === 'user' || r.type === 'gemini');
const isContent = (r: Rec) => (r.role === 'user' || r.role === 'model') && Array.isArray(r.parts);

/** The text a tool's result parts carry: each functionResponse as the proxy sees it, text parts. */
function partsText(parts: unknown): string {
  return (Array.isArray(parts) ? parts : [parts])
    .map((part) => {
      if (typeof part === 'string') return part;
      const p = asRecord(part);
      const response = asRecord(asRecord(p?.functionResponse)?.response);
      return response ? functionResponseText(response) : (asString(p?.text) ?? '');
    })
    .join('');
}

/** The session's messages, last version of each, up to any rewind (the JSONL form's rules). */
function messagesOf(records: readonly Rec[]): Rec[] {
  const byId = new Map<string, Rec>();
  for (const r of records) {
    if (typeof r.$rewindTo === 'string') {
      let drop = false;
      for (const key of [...byId.keys()]) {
        if (key === r.$rewindTo) drop = true;
        if (drop) byId.delete(key);
      }
    } else if (isMessage(r)) byId.set(r.id as string, r);
  }
  return [...byId.values()];
}

function fromMessages(messages: readonly Rec[], id: string): Conversation {
  const turns: ToolResult[][] = [];
  let model: string | undefined;
  for (const m of messages) {
    if (m.type !== 'gemini') continue;
    model = asString(m.model) ?? model;
    const calls: CallTable = new Map();
    const turn: ToolResult[] = [];
    for (const call of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
      const c = asRecord(call);
      if (!c || typeof c.id !== 'string' || c.result == null) continue;
      calls.set(c.id, { name: asString(c.name) ?? '', input: c.args });
      turn.push(resultOf(c.id, calls, partsText(c.result), turns.length, c.status === 'error'));
    }
    if (turn.length > 0) turns.push(turn);
  }
  return { id, ...(model ? { model } : {}), turns };
}

/**
 * Gemini CLI's saved sessions: `chats/session-*.jsonl` (a metadata line, then message records,
 * a message re-recorded as it changes, `$rewindTo` records), the older `.json` form (one
 * ConversationRecord), and `/chat save` checkpoints (a list of API contents). Each Gemini
 * message's tool calls with results, or each user content's functionResponse parts, are a turn.
 */
export const geminiChatReader: TranscriptReader = {
  format: 'gemini-chat',
  expects: EXPECTS,
  detect(text) {
    const lines = firstJsonLines(text, 5);
    if (lines.some((l) => typeof l.sessionId === 'string' && typeof l.projectHash === 'string')) return true;
    if (lines.length > 1) return false;
    const doc = parseDocument(text);
    if (Array.isArray(doc)) return doc.length > 0 && doc.every((c) => asRecord(c) && isContent(c as Rec));
    const record = asRecord(doc);
    return typeof record?.sessionId === 'string' && Array.isArray(record.messages);
  },
  read(text, name) {
    const doc = parseDocument(text);
    if (Array.isArray(doc) && doc.every((c) => asRecord(c) && isContent(c as Rec)) && doc.length > 0)
      // A checkpoint is a request's contents: read as the proxy reads them.
      return [{ id: name, turns: turnsByMessage(geminiAdapter.view({ contents: doc })?.results ?? []) }];
    const record = asRecord(doc);
    if (typeof record?.sessionId === 'string' && Array.isArray(record.messages))
      return [
        fromMessages(messagesOf(record.messages.filter((m) => asRecord(m)) as Rec[]), record.sessionId),
      ];
    const records = parseJsonLines(text, name).filter((r) => asRecord(r)) as Rec[];
    const meta = records.find((r) => typeof r.sessionId === 'string');
    const messages = messagesOf(records);
    if (!meta && messages.length === 0) throw nothingFits(name, EXPECTS, text);
    return [fromMessages(messages, asString(meta?.sessionId) ?? name)];
  },
};
