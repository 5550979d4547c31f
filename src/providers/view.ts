import type { Content, JsonEdit, ToolCallInput, ToolResult } from '../text/index.js';

/**
 * One request body seen through an adapter: its tool results in the engine's view, and a way
 * to write new contents back. Everything the adapter does not understand is left as it was.
 */
export interface RequestView<A extends string = string> {
  /** The API it is in (its provider's name). */
  api: A;
  results: ToolResult[];
  /** How many messages (or input items) the request holds: the next turn's cached prefix. */
  messageCount: number;
  /** What the session key is derived from when no header names one. */
  sessionSeed: string;
  /** The conversation id the client itself sent in the body, when it sends one. */
  clientSession?: string | undefined;
  /** True when the request continues a server-side conversation (Responses previous_response_id). */
  continuesServerState: boolean;
  /**
   * Results whose text is a JSON value of the body shown re-serialized (Gemini's whole
   * `response`): the caller reads those values' own bytes, so nothing JSON.parse lost (digits
   * past 2^53, `1.50`, spacing) is lost from the stash.
   */
  rawValues?: { index: number; holder: object; field: string }[];
  /** Writes new contents (by index into `results`) into the body, in place; returns the edits. */
  apply(contents: ReadonlyMap<number, Content>): JsonEdit[];
  /** Its tool calls' arguments, in order (calls whose arguments are not text or an object are left out). */
  calls: ToolCallInput[];
  /**
   * Writes new arguments (by index into `calls`, as text: JSON unless freeform) into the body,
   * in the API's form (an object where the API holds one); returns the edits.
   */
  applyCalls(inputs: ReadonlyMap<number, string>): JsonEdit[];
  /**
   * Gives the view the body's bytes (`parsed` is `JSON.parse(raw)`): calls whose arguments are
   * an object then read as the client wrote them, and are written back as such.
   */
  readCallsFrom(raw: Buffer, parsed: unknown): void;
}

/** An adapter: recognises and reads one API's request bodies. */
export interface RequestAdapter<A extends string = string> {
  readonly api: A;
  /** The view, or null when the body is not this API's shape (it is then forwarded untouched). */
  view(body: unknown): RequestView<A> | null;
}
