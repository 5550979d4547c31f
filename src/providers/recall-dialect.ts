import type { SseEvent } from './sse.js';

/** A JSON object of a request or an answer. */
export type Json = Record<string, unknown>;

/** One piece of the model's turn, in order: a call of the offered tool, of the agent's own tool, or anything else. */
export interface TurnPart {
  kind: 'recall' | 'agent' | 'other';
  /** The API's own item (a content block, a tool call, an output item, a part). */
  item: Json;
}

/** One recall call: the call's id for its answer, its arguments (undefined when not JSON). */
export interface RecallCall {
  callId: string;
  name: string;
  args: unknown;
}

/** The recall tool the proxy offers a model: its name, what the model reads, its input's JSON Schema. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: unknown;
}

/** A recall call and what spillway answers it with. */
export interface RecallAnswer {
  call: RecallCall;
  text: string;
  isError: boolean;
}

/** How the turn ends for the agent: cut at the first recall (and whether the agent got calls), or as written. */
export interface TurnCut {
  cut: boolean;
  agentCalls: boolean;
}

/**
 * One API's side of recall through the proxy (each provider's spec builds its own for the tool
 * offered): where its tools and conversation are, how its
 * answers name calls, how a recall is answered in its shape, how its stream is relayed.
 */
export interface Dialect {
  /** The offered tool as an item of `tools`: the same bytes every time. */
  toolJson: string;
  /** The names of the tools a request offers. */
  toolNames(body: Json): string[];
  /** The parts of a whole (not streamed) answer, in order. */
  partsOf(answer: Json): TurnPart[];
  /** A recall part's call. */
  callOf(part: TurnPart): RecallCall;
  /** The items appended to the conversation: what the model said, then the answers. */
  followUp(history: TurnPart[], answers: RecallAnswer[]): unknown[];
  /** The answer's usage (its own shape), or undefined. */
  usageOf(answer: Json): unknown;
  /** An answer that holds only `usage` (its own shape): what the provider's usage reader reads. */
  answerWith(usage: unknown): Json;
  /**
   * Whether the answer to a request streams as events the proxy relays: true, false, or undefined
   * for a stream it does not relay (Gemini's JSON array without alt=sse).
   */
  streams(url: string, body: Json): boolean | undefined;
  /** The whole answer the agent gets: the parts it sees, the usage of every round. */
  finish(answer: Json, parts: TurnPart[], end: TurnCut, usage: unknown): Json;
  /** A relay for one streamed answer over every round. */
  relay(): StreamRelay;
}

/** One streamed answer, relayed over the rounds as one stream. */
export interface StreamRelay {
  /** An event of the round under way: the bytes the client gets now ('' to hold it). */
  event(ev: SseEvent, round: number): string;
  /** The round is over: its parts and its usage; the text it still owes the client before the next round. */
  endRound(): { parts: TurnPart[]; usage: unknown };
  /** The closing events as they came (the loop counts the rounds and uses them when it can). */
  readonly ends: ClosingEvents;
  /** Bytes before the next round, once it is decided there is one. */
  between?(): string;
  /** The closing events, cut as decided, with the usage of every round. */
  finish(end: TurnCut, usage: unknown): string;
}

/**
 * A relay's closing events as they came: a turn that needed no recall ends with them, byte for
 * byte; any other is closed by the relay with the rounds' usage.
 *
 * @example
 * closing.hold(ev.raw); // a message_delta, a finish chunk, response.completed
 * closing.asCame(end) ?? rebuilt;
 */
export class ClosingEvents {
  #raw = '';
  #rounds = 0;

  hold(raw: string): void {
    this.#raw += raw;
  }

  roundEnded(): void {
    this.#rounds++;
  }

  /** Another round follows: what this one held is not the end. */
  nextRound(): void {
    this.#raw = '';
  }

  /** The closing events as they came, when the answer is the first round's, uncut. */
  asCame(end: TurnCut): string | undefined {
    return this.#rounds === 1 && !end.cut ? this.#raw : undefined;
  }
}

/**
 * Two usage objects added: every number at any depth summed, anything else taken from the later
 * one (the rounds of one answer report as one).
 *
 * @example
 * sumUsage({ input_tokens: 10, details: { cached_tokens: 2 } }, { input_tokens: 5, details: { cached_tokens: 1 } });
 * // { input_tokens: 15, details: { cached_tokens: 3 } }
 */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (a === undefined || a === null) return b;
  if (b === undefined || b === null) return a;
  if (typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return b;
  const out: Json = { ...(a as Json) };
  for (const [key, value] of Object.entries(b as Json)) out[key] = sumUsage(out[key], value);
  return out;
}

/**
 * The `streams` of an API whose body asks for a stream (`"stream": true`).
 *
 * @example
 * streamsWhenAsked('/v1/messages', { stream: true }); // true
 */
export const streamsWhenAsked = (_url: string, body: Json): boolean => body.stream === true;

/**
 * The `answerWith` of an API whose answers keep usage in `usage`.
 *
 * @example
 * usageAnswer({ input_tokens: 3 }); // { usage: { input_tokens: 3 } }
 */
export const usageAnswer = (usage: unknown): Json => ({ usage });
