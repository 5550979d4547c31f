import {
  type CallTable,
  callInput,
  type InputUsage,
  LatestWords,
  resultOf,
  totalInput,
} from '../../formats/index.js';
import { asRecord, type Content, type ContentBlock, type ToolResult } from '../../text/index.js';
import type { Conversation, TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, parseJsonLines } from './json-lines.js';

type Rec = Record<string, unknown>;

/**
 * The entries on the path from the root to the session's current leaf (its last entry): the
 * branch the agent was on. Entries left on another branch were never sent with it. A file
 * without ids (version 1, linear) is read in order.
 */
function activeBranch(entries: readonly Rec[]): Rec[] {
  const byId = new Map<string, Rec>();
  for (const e of entries) if (typeof e.id === 'string') byId.set(e.id, e);
  const leaf = entries.at(-1);
  if (!leaf || typeof leaf.id !== 'string') return [...entries];
  const path: Rec[] = [];
  const seen = new Set<string>();
  for (let e: Rec | undefined = leaf; e && typeof e.id === 'string' && !seen.has(e.id); ) {
    seen.add(e.id);
    path.push(e);
    e = typeof e.parentId === 'string' ? byId.get(e.parentId) : undefined;
  }
  return path.reverse();
}

/** What a pi usage record says of the request's input, or undefined when it says nothing. */
function inputUsage(usage: unknown): InputUsage | undefined {
  const u = asRecord(usage);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const out = { input: n(u?.input), cacheRead: n(u?.cacheRead), cacheWrite: n(u?.cacheWrite) };
  return out.input + out.cacheRead + out.cacheWrite > 0 ? out : undefined;
}

/** A tool result's content in spillway's blocks: text as text, images as Anthropic images. */
function contentOf(raw: unknown): Content {
  if (typeof raw === 'string') return raw;
  if (!Array.isArray(raw)) return '';
  const blocks: ContentBlock[] = [];
  for (const item of raw) {
    const b = asRecord(item);
    if (b?.type === 'text' && typeof b.text === 'string') blocks.push({ type: 'text', text: b.text });
    else if (b?.type === 'image' && typeof b.data === 'string')
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: asString(b.mimeType) ?? 'image/png', data: b.data },
      });
  }
  const only = blocks[0];
  return blocks.length === 1 && only?.type === 'text' && typeof only.text === 'string' ? only.text : blocks;
}

/**
 * Session files of agents built on the pi coding-agent toolkit (`~/.pi/agent/sessions/…jsonl`):
 * a `{"type":"session","version":3,…}` header, then entries linked by `id`/`parentId`, whose
 * `message` entries hold the agent's messages: `toolCall` blocks in assistant messages,
 * `toolResult` messages with the results. The branch to the last entry is the conversation;
 * results that follow each other form one turn, and the next assistant message's usage is that
 * request's.
 */
export const piSessionReader: TranscriptReader = {
  format: 'pi',
  expects:
    'pi coding-agent session JSONL (a first line {"type":"session","version":N,...}, then "message" entries)',
  detect(text) {
    const [first] = firstJsonLines(text, 1);
    return first?.type === 'session' && typeof first.version === 'number' && 'cwd' in first;
  },
  read(text, name) {
    const entries: Rec[] = parseJsonLines(text, name).flatMap((v) => {
      const r = asRecord(v);
      return r ? [r] : [];
    });
    const header = entries[0]?.type === 'session' ? entries[0] : undefined;
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    const otherText: string[] = [];
    const providerUsage: (InputUsage | undefined)[] = [];
    let current: ToolResult[] = [];
    let pending = '';
    let model: string | undefined;
    // A turn's results went up in one request; the next assistant message answered it.
    let awaitingAnswer = false;
    const endTurn = () => {
      if (current.length === 0) return;
      turns.push(current);
      otherText.push(pending);
      providerUsage.push(undefined);
      current = [];
      pending = '';
      awaitingAnswer = true;
    };
    for (const entry of activeBranch(entries.filter((e) => e !== header))) {
      if (entry.type === 'model_change') model = asString(entry.modelId) ?? model;
      const message = asRecord(entry.message);
      if (entry.type !== 'message' || !message) continue;
      const role = message.role;
      if (role === 'toolResult' && typeof message.toolCallId === 'string') {
        const content = contentOf(message.content);
        current.push(resultOf(message.toolCallId, calls, content, turns.length, message.isError === true));
        continue;
      }
      endTurn();
      words.hear(role, message.content);
      if (role !== 'assistant') {
        if (typeof message.content === 'string') pending += `${message.content}\n`;
        continue;
      }
      model = asString(message.model) ?? model;
      if (awaitingAnswer) providerUsage[turns.length - 1] = inputUsage(message.usage);
      awaitingAnswer = false;
      for (const block of Array.isArray(message.content) ? message.content : []) {
        const b = asRecord(block);
        if (b?.type === 'text' && typeof b.text === 'string') pending += `${b.text}\n`;
        if (b?.type !== 'toolCall' || typeof b.id !== 'string') continue;
        pending += `${asString(b.name) ?? ''} ${JSON.stringify(b.arguments ?? {})}\n`;
        calls.set(b.id, { name: asString(b.name) ?? '', input: callInput(b.arguments), said: words.now() });
      }
    }
    endTurn();
    const providerTokens = providerUsage.map((u) => (u ? totalInput(u) : undefined));
    const conversation: Conversation = {
      id: asString(header?.id) ?? name,
      ...(model ? { model } : {}),
      turns,
      otherText,
      providerTokens,
      providerUsage,
    };
    return [conversation];
  },
};
