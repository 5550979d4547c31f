import { asRecord } from '../../text/index.js';
import {
  ClosingEvents,
  type Dialect,
  type Json,
  type OfferedTool,
  type RecallAnswer,
  type StreamRelay,
  sumUsage,
  type TurnCut,
  type TurnPart,
} from '../recall-dialect.js';
import { eventJson, type SseEvent, sseText } from '../sse.js';

/** A part as a part of the turn: a call of the tool named `offered` is a recall. */
function partOf(part: Json, offered: string): TurnPart {
  const call = asRecord(part.functionCall);
  if (!call) return { kind: 'other', item: part };
  return { kind: call.name === offered ? 'recall' : 'agent', item: part };
}

const candidateOf = (answer: Json): Json => asRecord((answer.candidates as unknown[] | undefined)?.[0]) ?? {};
const partsIn = (answer: Json): Json[] => {
  const parts = asRecord(candidateOf(answer).content)?.parts;
  return Array.isArray(parts) ? (parts as Json[]) : [];
};

/** The answer with its first candidate's parts (and finish reason) replaced. */
function withParts(answer: Json, parts: Json[], finish?: unknown): Json {
  const candidate = candidateOf(answer);
  const content = { role: 'model', ...asRecord(candidate.content), parts };
  const { finishReason, ...rest } = candidate;
  const reason = finish === undefined ? {} : { finishReason: finish ?? finishReason };
  return { ...answer, candidates: [{ ...rest, content, ...reason }] };
}

/** Gemini generateContent: `tools[].functionDeclarations`, parts, `functionCall` and `functionResponse`. */
export function recallDialect(tool: OfferedTool): Dialect {
  const { description, inputSchema } = tool;
  return {
    // Its own entry of `tools`, its schema as JSON Schema (the OpenAPI subset of `parameters` has no additionalProperties).
    toolJson: JSON.stringify({
      functionDeclarations: [{ name: tool.name, description, parametersJsonSchema: inputSchema }],
    }),
    toolNames: (body) =>
      (Array.isArray(body.tools) ? body.tools : []).flatMap((t) => {
        const declarations = asRecord(t)?.functionDeclarations;
        return Array.isArray(declarations) ? declarations.map((d) => String(asRecord(d)?.name)) : [];
      }),
    partsOf: (answer) => partsIn(answer).map((p) => partOf(p, tool.name)),
    callOf({ item }) {
      const call = asRecord(item.functionCall) ?? {};
      return { callId: String(call.id ?? call.name), name: String(call.name), args: call.args ?? {} };
    },
    followUp: (history, answers) => [
      { role: 'model', parts: history.map((p) => p.item) },
      { role: 'user', parts: answers.map((a) => functionResponse(a, tool.name)) },
    ],
    usageOf: (answer) => answer.usageMetadata,
    answerWith: (usage) => ({ usageMetadata: usage }),
    // Its JSON-array stream (no alt=sse) is not one the proxy relays.
    streams(url) {
      if (!url.includes(':streamGenerateContent')) return false;
      return new URL(url, 'http://spillway.invalid').searchParams.get('alt') === 'sse' ? true : undefined;
    },
    finish(answer, parts, _end, usage) {
      return {
        ...withParts(
          answer,
          parts.map((p) => p.item),
        ),
        ...(usage === undefined ? {} : { usageMetadata: usage }),
      };
    },
    relay: () => new GeminiRelay(tool.name),
  };
}

function functionResponse({ call, text, isError }: RecallAnswer, name: string): Json {
  const id = call.callId === call.name ? {} : { id: call.callId };
  return {
    functionResponse: { ...id, name, response: isError ? { error: text } : { output: text } },
  };
}

/**
 * Gemini's stream over the rounds: chunks pass until one holds a recall call, each carrying the
 * usage of the rounds before it added to its own (so the last carries them all); the chunk with
 * the finish reason is held to the end.
 */
class GeminiRelay implements StreamRelay {
  #holding = false;
  #parts: Json[] = [];
  #closing: Json | undefined;
  #usage: unknown;
  /** The usage of the rounds before this one. */
  #before: unknown;
  /** Parts of the held closing chunk that come before a recall: sent before the next round. */
  #owed = '';
  readonly ends = new ClosingEvents();
  readonly #offered: string;

  constructor(offered: string) {
    this.#offered = offered;
  }

  event(ev: SseEvent): string {
    const data = eventJson(ev);
    if (!data) return ev.raw;
    if (data.usageMetadata) this.#usage = data.usageMetadata;
    const parts = partsIn(data);
    this.#parts.push(...parts);
    if (parts.some((p) => partOf(p, this.#offered).kind === 'recall')) this.#holding = true;
    if (candidateOf(data).finishReason !== undefined) {
      this.#closing = data;
      this.ends.hold(ev.raw);
      return '';
    }
    if (this.#holding) return '';
    return this.#before === undefined
      ? ev.raw
      : sseText(undefined, { ...data, usageMetadata: sumUsage(this.#before, data.usageMetadata) });
  }

  endRound() {
    const parts = this.#parts.map((p) => partOf(p, this.#offered));
    const first = parts.findIndex((p) => p.kind === 'recall');
    const closing = this.#closing;
    if (closing && first >= 0) {
      // What the closing chunk said before the recall reaches the client before the next round.
      const said = partsIn(closing).filter(
        (p) => partOf(p, this.#offered).kind === 'other' && this.#parts.indexOf(p) < first,
      );
      this.#owed =
        said.length > 0
          ? sseText(undefined, withParts({ ...closing, usageMetadata: undefined }, said, null))
          : '';
    }
    const usage = this.#usage;
    this.#before = sumUsage(this.#before, usage);
    this.#holding = false;
    this.#parts = [];
    this.#usage = undefined;
    return { parts, usage };
  }

  between(): string {
    const owed = this.#owed;
    this.#owed = '';
    return owed;
  }

  finish(end: TurnCut, usage: unknown): string {
    const closing = this.#closing ?? {
      candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP' }],
    };
    const parts = partsIn(closing);
    const first = parts.findIndex((p) => partOf(p, this.#offered).kind === 'recall');
    const kept = end.cut && first >= 0 ? parts.slice(0, first) : parts;
    return sseText(undefined, {
      ...withParts(closing, kept),
      ...(usage === undefined ? {} : { usageMetadata: usage }),
    });
  }
}
