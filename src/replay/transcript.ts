import { type ApiName, type InputUsage, PROVIDERS } from '../providers/index.js';
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

/** The transcripts of programs spillway reads, by their own format. */
const PROGRAM_FORMATS = [
  'claude-code',
  'codex',
  'swe-agent',
  'mini-swe-agent',
  'openhands',
  'gemini-cli',
  'block-lines',
  'gemini-chat',
  'managed-agents',
  'pi',
] as const;
/** A transcript's format: a program's own, or a saved request body of a model API (its name). */
export type TranscriptFormat = (typeof PROGRAM_FORMATS)[number] | ApiName;

/** Every transcript format: the programs', then each model API's whose saved bodies replay reads. */
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = [
  ...PROGRAM_FORMATS,
  ...PROVIDERS.specs.flatMap((s) => (s.saved ? [s.api] : [])),
];

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
