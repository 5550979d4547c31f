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

/** The items that are the agent's tools to run. */
const AGENT_CALLS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'shell_call',
  'apply_patch_call',
]);

/** An output item as a part of the turn: a call of the tool named `offered` is a recall. */
function partOf(item: Json, offered: string): TurnPart {
  if (item.type === 'function_call' && item.name === offered) return { kind: 'recall', item };
  return { kind: AGENT_CALLS.has(String(item.type)) ? 'agent' : 'other', item };
}

/** A namespace (Codex's MCP tools) lists its functions inside. */
function namesOf(tool: unknown): string[] {
  const t = asRecord(tool) ?? {};
  return Array.isArray(t.tools) ? t.tools.map((f) => String(asRecord(f)?.name)) : [String(t.name)];
}

/** OpenAI Responses: `tools[]`, output items, `function_call` and `function_call_output`. */
export function recallDialect(tool: OfferedTool): Dialect {
  const { description, inputSchema } = tool;
  return {
    toolJson: JSON.stringify({
      type: 'function',
      name: tool.name,
      description,
      parameters: inputSchema,
      strict: false,
    }),
    toolNames: (body) => [
      ...(Array.isArray(body.tools) ? body.tools : []).flatMap(namesOf),
      ...(Array.isArray(body.input) ? body.input : [])
        .map((i) => asRecord(i) ?? {})
        .filter((i) => i.type === 'additional_tools')
        .flatMap((i) => (Array.isArray(i.tools) ? i.tools.flatMap(namesOf) : [])),
    ],
    partsOf: (answer) =>
      (Array.isArray(answer.output) ? (answer.output as Json[]) : []).map((i) => partOf(i, tool.name)),
    callOf({ item }) {
      let args: unknown;
      try {
        args = JSON.parse(String(item.arguments ?? '{}'));
      } catch {}
      return { callId: String(item.call_id), name: String(item.name), args };
    },
    followUp: (history, answers) => [...history.map((p) => p.item), ...answers.map(callOutput)],
    usageOf: (answer) => answer.usage,
    answerWith: usageAnswer,
    streams: streamsWhenAsked,
    finish(answer, parts, _end, usage) {
      return { ...answer, output: parts.map((p) => p.item), ...(usage === undefined ? {} : { usage }) };
    },
    relay: () => new ResponsesRelay(tool.name),
  };
}

function callOutput({ call, text }: RecallAnswer): Json {
  return { type: 'function_call_output', call_id: call.callId, output: text };
}

const START = new Set(['response.created', 'response.in_progress', 'response.queued']);
const END = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Responses' stream over the rounds: one response.created, the items of every round numbered on
 * (output_index, sequence_number), a recall's item held from its start, one response.completed
 * at the end listing every item the client got.
 */
class ResponsesRelay implements StreamRelay {
  #offset = 0;
  #sequence = 0;
  #holdFrom = Number.POSITIVE_INFINITY;
  #items = new Map<number, Json>();
  /** Items the client got, over every round: the final response lists them. */
  #shown: Json[] = [];
  #closing: Json | undefined;
  #usage: unknown;
  readonly ends = new ClosingEvents();
  readonly #offered: string;

  constructor(offered: string) {
    this.#offered = offered;
  }

  event(ev: SseEvent, round: number): string {
    const data = eventJson(ev);
    const type = String(data?.type ?? ev.event);
    if (!data) return ev.raw;
    if (START.has(type)) return round === 0 ? this.#send(ev, data, false) : '';
    if (END.has(type)) {
      this.#closing = data;
      this.ends.hold(ev.raw);
      this.#usage = asRecord(data.response)?.usage;
      return '';
    }
    const index = typeof data.output_index === 'number' ? data.output_index : undefined;
    if (index === undefined) return this.#send(ev, data, false);
    const item = asRecord(data.item);
    // Its start holds a recall's item; a stream that skips the start has it held at its end.
    if (
      (type === 'response.output_item.added' || type === 'response.output_item.done') &&
      item &&
      partOf(item, this.#offered).kind === 'recall'
    )
      this.#holdFrom = Math.min(this.#holdFrom, index);
    if (type === 'response.output_item.done' && item) this.#items.set(index, item);
    if (index >= this.#holdFrom) return '';
    return this.#send(ev, { ...data, output_index: index + this.#offset }, this.#offset > 0);
  }

  /** The event as the client gets it: numbered on from the events it got before. */
  #send(ev: SseEvent, data: Json, changed: boolean): string {
    if (typeof data.sequence_number !== 'number' && !changed) return ev.raw;
    return sseText(ev.event, {
      ...data,
      ...(typeof data.sequence_number === 'number' ? { sequence_number: this.#sequence++ } : {}),
    });
  }

  endRound() {
    const entries = [...this.#items.entries()].sort(([a], [b]) => a - b);
    const parts = entries.map(([, item]) => partOf(item, this.#offered));
    const shown = entries.filter(([index]) => index < this.#holdFrom);
    this.#shown.push(...shown.map(([, item]) => item));
    this.#offset += shown.length;
    const usage = this.#usage;
    this.#holdFrom = Number.POSITIVE_INFINITY;
    this.#items = new Map();
    this.#usage = undefined;
    return { parts, usage };
  }

  finish(_end: TurnCut, usage: unknown): string {
    const closing = this.#closing ?? { type: 'response.completed', response: {} };
    const response = {
      ...asRecord(closing.response),
      output: this.#shown,
      ...(usage === undefined ? {} : { usage }),
    };
    const event = {
      ...closing,
      response,
      ...(typeof closing.sequence_number === 'number' ? { sequence_number: this.#sequence++ } : {}),
    };
    return sseText(String(closing.type), event);
  }
}
