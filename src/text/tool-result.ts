import type { Content } from './blocks.js';

/**
 * One tool result of a conversation: what every adapter reads from a request body, every
 * transcript reader from a log, and the session from its events; what the stages decide on.
 *
 * @example
 * const result: ToolResult = { id: 'toolu_01', tool: 'Bash', content: hugeLog, position: 3 };
 */
export interface ToolResult {
  /** The tool call id (`toolu_...`, `call_...`). */
  id: string;
  /** The tool's name, from the call that asked for it ('' when unknown). */
  tool: string;
  content: Content;
  /**
   * Where it sits: the index of the message that carries it in a request, the turn it arrived
   * in for a transcript. Results below the cached-prefix boundary are in the provider's cache.
   */
  position: number;
  /**
   * The arguments of the call that produced it (JSON arguments parsed), when the request or
   * transcript has them: what file a read read, what command a shell ran.
   */
  input?: unknown;
  /**
   * The latest words of the user and of the assistant before the call, when the conversation
   * has them: what was asked about, scored for relevance like the arguments.
   */
  said?: string;
  /** True for the output of a spillway_expand call: never shrunk again. */
  isExpandOutput?: boolean;
  isError?: boolean;
  /** The exact bytes of the original when its text is a lossy decoding of them (CLI input). */
  originalBytes?: Buffer;
}
