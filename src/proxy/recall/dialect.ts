import type { SseEvent } from './sse.js';
import type { Json, RecallCall, TurnPart } from './turn.js';

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
 * One API's side of recall through the proxy: where its tools and conversation are, how its
 * answers name calls, how a recall is answered in its shape, how its stream is relayed.
 */
export interface Dialect {
  /** The top-level array the conversation is in (messages, input, contents). */
  conversationKey: string;
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
