import { asRecord } from '../../text/index.js';
import {
  ClosingEvents,
  type Dialect,
  type Json,
  type OfferedTool,
  type RecallAnswer,
  type StreamRelay,
  streamsWhenAsked,
  type TurnCut,
  type TurnPart,
  usageAnswer,
} from '../recall-dialect.js';
import { eventJson, type SseEvent, sseText } from '../sse.js';

/** A content block as a part of the turn: a call of the tool named `offered` is a recall. */
function partOf(block: Json, offered: string): TurnPart {
  if (block.type !== 'tool_use') return { kind: 'other', item: block };
  return { kind: block.name === offered ? 'recall' : 'agent', item: block };
}

/** Only the counts: the rounds' usage objects summed hold nothing else a client reads. */
function counts(usage: unknown): Json {
  return Object.fromEntries(Object.entries(asRecord(usage) ?? {}).filter(([, v]) => typeof v === 'number'));
}

/** Anthropic Messages: `tools[].name`, content blocks, `tool_use` and `tool_result`. */
export function recallDialect(tool: OfferedTool): Dialect {
  const { description, inputSchema } = tool;
  return {
    toolJson: JSON.stringify({ name: tool.name, description, input_schema: inputSchema }),
    toolNames: (body) => (Array.isArray(body.tools) ? body.tools : []).map((t) => String(asRecord(t)?.name)),
    partsOf: (answer) =>
      (Array.isArray(answer.content) ? (answer.content as Json[]) : []).map((b) => partOf(b, tool.name)),
    callOf: ({ item }) => ({ callId: String(item.id), name: String(item.name), args: item.input }),
    followUp: (history, answers) => [
      { role: 'assistant', content: history.map((p) => p.item) },
      { role: 'user', content: answers.map(toolResult) },
    ],
    usageOf: (answer) => answer.usage,
    answerWith: usageAnswer,
    streams: streamsWhenAsked,
    finish(answer, parts, end, usage) {
      const stop = end.cut && !end.agentCalls ? { stop_reason: 'end_turn' } : {};
      return {
        ...answer,
        content: parts.map((p) => p.item),
        ...stop,
        usage: { ...asRecord(answer.usage), ...counts(usage) },
      };
    },
    relay: () => new AnthropicRelay(tool.name),
  };
}

function toolResult({ call, text, isError }: RecallAnswer): Json {
  return {
    type: 'tool_result',
    tool_use_id: call.callId,
    content: text,
    ...(isError ? { is_error: true } : {}),
  };
}

/**
 * Anthropic's stream over the rounds: one message_start, the blocks of every round numbered on,
 * a recall's block held from its start, one message_delta and message_stop at the end.
 */
class AnthropicRelay implements StreamRelay {
  /** Blocks the client got in earlier rounds: this round's are numbered after them. */
  #offset = 0;
  #sent = 0;
  #holdFrom = Number.POSITIVE_INFINITY;
  #blocks = new Map<number, { block: Json; json: string }>();
  #usage: Json = {};
  #delta: Json | undefined;
  readonly ends = new ClosingEvents();
  readonly #offered: string;

  constructor(offered: string) {
    this.#offered = offered;
  }

  event(ev: SseEvent, round: number): string {
    const data = eventJson(ev);
    const type = data?.type;
    if (!data) return ev.raw;
    if (type === 'message_start') {
      this.#usage = { ...asRecord(asRecord(data.message)?.usage) };
      return round === 0 ? ev.raw : '';
    }
    if (type === 'message_delta') {
      this.#usage = { ...this.#usage, ...asRecord(data.usage) };
      this.#delta = data;
      this.ends.hold(ev.raw);
      return '';
    }
    if (type === 'message_stop') {
      this.ends.hold(ev.raw);
      return '';
    }
    const index = typeof data.index === 'number' ? data.index : undefined;
    if (index === undefined) return ev.raw;
    this.#accumulate(type, index, data);
    if (index >= this.#holdFrom) return '';
    if (type === 'content_block_start') this.#sent = Math.max(this.#sent, index + 1);
    return this.#offset === 0 ? ev.raw : sseText(ev.event, { ...data, index: index + this.#offset });
  }

  #accumulate(type: unknown, index: number, data: Json): void {
    if (type === 'content_block_start') {
      const block = { ...asRecord(data.content_block) };
      if (block.type === 'tool_use' && block.name === this.#offered)
        this.#holdFrom = Math.min(this.#holdFrom, index);
      this.#blocks.set(index, { block, json: '' });
      return;
    }
    const held = this.#blocks.get(index);
    const delta = asRecord(data.delta);
    if (type !== 'content_block_delta' || !held || !delta) return;
    if (delta.type === 'input_json_delta') held.json += String(delta.partial_json ?? '');
    else if (delta.type === 'text_delta') held.block.text = `${held.block.text ?? ''}${delta.text ?? ''}`;
    else if (delta.type === 'thinking_delta')
      held.block.thinking = `${held.block.thinking ?? ''}${delta.thinking ?? ''}`;
    else if (delta.type === 'signature_delta') held.block.signature = delta.signature;
  }

  endRound() {
    const parts = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, { block, json }]) =>
        partOf(block.type === 'tool_use' ? { ...block, input: parseInput(json) } : block, this.#offered),
      );
    const usage = this.#usage;
    this.#offset += this.#sent;
    this.#sent = 0;
    this.#holdFrom = Number.POSITIVE_INFINITY;
    this.#blocks = new Map();
    this.#usage = {};
    return { parts, usage };
  }

  finish(end: TurnCut, usage: unknown): string {
    const delta = { ...asRecord(this.#delta?.delta) };
    if (end.cut && !end.agentCalls) delta.stop_reason = 'end_turn';
    const usageOut = { ...asRecord(this.#delta?.usage), ...counts(usage) };
    return (
      sseText('message_delta', { ...this.#delta, type: 'message_delta', delta, usage: usageOut }) +
      sseText('message_stop', { type: 'message_stop' })
    );
  }
}

/** A tool call's streamed input: `{}` when it streamed none. */
function parseInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
