import type { InputUsage } from '../formats/index.js';
import type { ToolResult } from '../text/index.js';

/**
 * One conversation: its tool results grouped by the turn (request) they arrived in; each
 * result's `position` is the index of its turn.
 */
export interface Conversation {
  id: string;
  model?: string;
  turns: ToolResult[][];
  /**
   * Per turn, where the format records it: the request's text besides tool results that arrived
   * since the turn before (the user's words, the model's text, its tool calls' arguments).
   */
  otherText?: string[];
  /** Per turn: the input tokens the provider reported for the request that carried it. */
  providerTokens?: (number | undefined)[];
  /** The same requests' input as the provider billed it (base price, cache reads, cache writes). */
  providerUsage?: (InputUsage | undefined)[];
}

export const TRANSCRIPT_FORMATS = [
  'claude-code',
  'codex',
  'swe-agent',
  'mini-swe-agent',
  'openhands',
  'gemini-cli',
  'block-lines',
  'gemini-chat',
  'managed-agents',
  'anthropic',
  'openai-chat',
  'openai-responses',
  'pi',
] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** A reader: recognises its format from the content, and reads it. */
export interface TranscriptReader {
  readonly format: TranscriptFormat;
  /** What the format looks like, for error messages. */
  readonly expects: string;
  /** True when `text` is in this format (decided on content, never on the file name). */
  detect(text: string): boolean;
  /** The conversations; throws SPILLWAY_BAD_INPUT naming the line or field that is wrong. */
  read(text: string, name: string): Conversation[];
}
