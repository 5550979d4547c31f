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

/** A message's parts: its text (and whatever else it holds) first, then its calls in order; a call of the tool named `offered` is a recall. */
function partsOfMessage(message: Json, offered: string): TurnPart[] {
  const { tool_calls: calls, ...rest } = message;
  const text: TurnPart = { kind: 'other', item: rest };
  return [
    text,
    ...(Array.isArray(calls) ? (calls as Json[]) : []).map(
      (call): TurnPart => ({
        kind: asRecord(call.function)?.name === offered ? 'recall' : 'agent',
        item: call,
      }),
    ),
  ];
}

/** The one assistant message parts make: the texts joined, the calls listed. */
function messageOf(parts: readonly TurnPart[]): Json {
  const others = parts.filter((p) => p.kind === 'other').map((p) => p.item);
  const text = others.map((o) => (typeof o.content === 'string' ? o.content : '')).join('');
  const calls = parts.filter((p) => p.kind !== 'other').map((p) => p.item);
  return {
    ...others.at(-1),
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

const choiceOf = (answer: Json): Json => asRecord((answer.choices as unknown[] | undefined)?.[0]) ?? {};

/** OpenAI Chat Completions: `tools[].function`, one assistant message with `tool_calls`, `tool` messages. */
export function recallDialect(tool: OfferedTool): Dialect {
  const { description, inputSchema } = tool;
  return {
    toolJson: JSON.stringify({
      type: 'function',
      function: { name: tool.name, description, parameters: inputSchema },
    }),
    toolNames: (body) =>
      (Array.isArray(body.tools) ? body.tools : []).map((t) => String(asRecord(asRecord(t)?.function)?.name)),
    partsOf: (answer) => partsOfMessage(asRecord(choiceOf(answer).message) ?? {}, tool.name),
    callOf({ item }) {
      const fn = asRecord(item.function) ?? {};
      let args: unknown;
      try {
        args = JSON.parse(String(fn.arguments ?? '{}'));
      } catch {}
      return { callId: String(item.id), name: String(fn.name), args };
    },
    followUp: (history, answers) => [messageOf(history), ...answers.map(toolMessage)],
    usageOf: (answer) => answer.usage,
    answerWith: usageAnswer,
    streams: streamsWhenAsked,
    finish(answer, parts, end, usage) {
      const choice = choiceOf(answer);
      const finish = end.cut && !end.agentCalls ? { finish_reason: 'stop' } : {};
      const choices = [{ ...choice, message: messageOf(parts), ...finish }];
      return { ...answer, choices, ...(usage === undefined ? {} : { usage }) };
    },
    relay: () => new ChatRelay(tool.name),
  };
}

function toolMessage({ call, text }: RecallAnswer): Json {
  return { role: 'tool', tool_call_id: call.callId, content: text };
}

/**
 * Chat's stream over the rounds: chunks pass until one starts a recall call; the chunk with the
 * finish reason, the usage chunk and [DONE] are held to the end, then sent once.
 */
class ChatRelay implements StreamRelay {
  #holding = false;
  #text = '';
  #calls = new Map<number, Json>();
  #closing: Json | undefined;
  #usage: unknown;
  readonly ends = new ClosingEvents();
  readonly #offered: string;

  constructor(offered: string) {
    this.#offered = offered;
  }

  event(ev: SseEvent): string {
    if (ev.data.trim() === '[DONE]') {
      this.ends.hold(ev.raw);
      return '';
    }
    const data = eventJson(ev);
    if (!data) return ev.raw;
    if (data.usage) this.#usage = data.usage;
    const choice = choiceOf(data);
    const delta = asRecord(choice.delta);
    if (!delta) {
      if (!data.usage) return ev.raw;
      this.ends.hold(ev.raw);
      return '';
    }
    this.#accumulate(delta);
    const finished = choice.finish_reason !== null && choice.finish_reason !== undefined;
    if (finished) {
      this.#closing = data;
      this.ends.hold(ev.raw);
    }
    if (this.#holding || finished) return '';
    return data.usage ? sseText(undefined, { ...data, usage: null }) : ev.raw;
  }

  #accumulate(delta: Json): void {
    if (typeof delta.content === 'string') this.#text += delta.content;
    for (const raw of Array.isArray(delta.tool_calls) ? (delta.tool_calls as Json[]) : []) {
      const index = typeof raw.index === 'number' ? raw.index : 0;
      const fn = asRecord(raw.function) ?? {};
      const call = this.#calls.get(index) ?? {
        id: raw.id,
        type: 'function',
        function: { name: '', arguments: '' },
      };
      const into = call.function as Json;
      if (typeof raw.id === 'string') call.id = raw.id;
      if (typeof fn.name === 'string') into.name = `${into.name}${fn.name}`;
      if (typeof fn.arguments === 'string') into.arguments = `${into.arguments}${fn.arguments}`;
      this.#calls.set(index, call);
      if (into.name === this.#offered) this.#holding = true;
    }
  }

  endRound() {
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    const parts = partsOfMessage(
      { role: 'assistant', content: this.#text, tool_calls: calls },
      this.#offered,
    );
    const usage = this.#usage;
    this.#holding = false;
    this.#text = '';
    this.#calls = new Map();
    this.#usage = undefined;
    return { parts, usage };
  }

  finish(end: TurnCut, usage: unknown): string {
    const closing = this.#closing ?? { object: 'chat.completion.chunk', choices: [{ index: 0, delta: {} }] };
    const choice = choiceOf(closing);
    const reason = end.cut && !end.agentCalls ? 'stop' : choice.finish_reason;
    // The closing chunk's own delta was held with it; a recall in it is not the agent's.
    const delta = { ...asRecord(choice.delta) };
    if (end.cut) delete delta.tool_calls;
    const { usage: _own, ...rest } = closing;
    const last = { ...rest, choices: [{ ...choice, delta, finish_reason: reason }] };
    const usageChunk = usage === undefined ? '' : sseText(undefined, { ...closing, choices: [], usage });
    return `${sseText(undefined, last)}${usageChunk}data: [DONE]\n\n`;
  }
}
