/**
 * One tool call's arguments in a request, as the engine may clear them: every adapter lists
 * its request's calls this way, and the replay its transcript's. `text` is what the arguments
 * are as text: JSON (an object input serialized, or OpenAI's `arguments` string as sent), or
 * the freeform text of a custom tool (Codex's `apply_patch`).
 *
 * @example
 * const call: ToolCallInput = { id: 'toolu_01', tool: 'Write', position: 5, text: '{"file_path":"a.ts","content":"..."}', freeform: false };
 */
export interface ToolCallInput {
  /** The tool call id (`toolu_...`, `call_...`; Gemini's function name when the call has none). */
  id: string;
  tool: string;
  /** The index of the message (or input item) that holds the call. */
  position: number;
  /** The arguments as text: JSON unless `freeform`. */
  text: string;
  /** True for a custom tool's freeform input: the text is the input itself, not JSON. */
  freeform: boolean;
}
