import { type CallTable, LatestWords, resultOf } from '../../formats/index.js';
import type { Content, ContentBlock, ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, nothingFits, parseDocument, recordsOf } from './json-lines.js';

const EXPECTS =
  'Claude Managed Agents session events (JSONL, or the events list JSON with "data": events with "type":"agent.tool_use"/"agent.tool_result"/..., and processed_at; each may be wrapped under "raw")';

type Rec = Record<string, unknown>;
const EVENT_TYPE = /^(agent|user|session|span)\./;
const isEvent = (e: Rec) => typeof e.type === 'string' && EVENT_TYPE.test(e.type) && 'processed_at' in e;

/**
 * The event a record is: itself, or the one a logger wrapped under `raw` (`{"raw": {...},
 * "received_at": ...}`), which is taken as it is.
 */
function eventOf(record: unknown): Rec | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const r = record as Rec;
  if (isEvent(r)) return r;
  const raw = r.raw;
  if (
    typeof raw === 'object' &&
    raw !== null &&
    typeof (raw as Rec).type === 'string' &&
    EVENT_TYPE.test((raw as Rec).type as string)
  )
    return raw as Rec;
  return undefined;
}
const USES = new Set(['agent.tool_use', 'agent.mcp_tool_use', 'agent.custom_tool_use']);
/** Each result event and the field naming the use it answers. */
const RESULTS: Record<string, string> = {
  'agent.tool_result': 'tool_use_id',
  'agent.mcp_tool_result': 'mcp_tool_use_id',
  'user.custom_tool_result': 'custom_tool_use_id',
  'user.tool_result': 'tool_use_id',
};

/**
 * Claude Managed Agents session events (`GET /v1/sessions/{id}/events`, or the event stream
 * saved as JSONL): tool uses (`agent.tool_use`, `agent.mcp_tool_use`, `agent.custom_tool_use`)
 * and their results; the results between two model turns are one turn.
 */
export const managedAgentsReader: TranscriptReader = {
  format: 'managed-agents',
  expects: EXPECTS,
  detect(text) {
    const lines = firstJsonLines(text, 10);
    if (lines.some((line) => eventOf(line))) return true;
    if (lines.length > 1) return false;
    const doc = parseDocument(text);
    const data = Array.isArray(doc) ? doc : (doc as Rec | undefined)?.data;
    return Array.isArray(data) && data.slice(0, 10).some((e) => eventOf(e));
  },
  read(text, name) {
    const events = recordsOf(text, name, ['data', 'events']).flatMap((r): Rec[] => {
      const event = eventOf(r);
      return event ? [event] : [];
    });
    if (events.length === 0) throw nothingFits(name, EXPECTS, text);
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    let turn: ToolResult[] = [];
    let id = name;
    for (const e of events) {
      id = asString(e.session_id) ?? id;
      const type = e.type as string;
      if (type === 'user.message' || type === 'agent.message')
        words.hear(type === 'user.message' ? 'user' : 'assistant', e.content);
      if (USES.has(type)) {
        if (turn.length > 0) turns.push(turn);
        turn = [];
        if (typeof e.id === 'string')
          calls.set(e.id, { name: asString(e.name) ?? '', input: e.input, said: words.now() });
        continue;
      }
      const field = RESULTS[type];
      if (!field || typeof e[field] !== 'string') continue;
      const raw = e.content;
      const content: Content =
        typeof raw === 'string' ? raw : Array.isArray(raw) ? (raw as ContentBlock[]) : '';
      turn.push(resultOf(e[field] as string, calls, content, turns.length, e.is_error === true));
    }
    if (turn.length > 0) turns.push(turn);
    return [{ id, turns }];
  },
};
