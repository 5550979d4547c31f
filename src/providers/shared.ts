import { type Content, type ContentBlock, isRecord, type JsonEdit, type ToolResult } from '../text/index.js';

/**
 * Content as the engine sees it, or null when the value is neither a string nor a block list.
 *
 * @example
 * asContent('text'); // 'text'
 * asContent(42); // null
 */
export function asContent(value: unknown): Content | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((b) => isRecord(b) && typeof b.type === 'string'))
    return value as ContentBlock[];
  return null;
}

/**
 * A short, stable text of the start of a conversation, for deriving a session key.
 *
 * @example
 * sessionKey(undefined, seedOf('anthropic', system, firstUserMessage));
 */
export function seedOf(...parts: unknown[]): string {
  return parts.map(plainText).join('\u0000');
}

/**
 * The text of a prompt part without the annotations clients move between turns (Claude Code
 * moves `cache_control` off the first user message after turn 1): strings as they are, blocks
 * by their text, anything else as JSON.
 */
function plainText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (Array.isArray(part))
    return part.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : plainText(b))).join('\n');
  if (isRecord(part) && typeof part.text === 'string') return part.text;
  return JSON.stringify(part ?? null);
}

/**
 * The conversation id a client sends in the body, where it sends one: Claude Code's session
 * in `metadata.user_id` (`..._session_<uuid>`), the Responses and Chat `prompt_cache_key`
 * (Codex sends its thread id there), Chat's `user`.
 *
 * @example
 * clientSessionOf({ metadata: { user_id: 'user_ab_account_cd_session_0f3e' } }); // 'session_0f3e'
 * clientSessionOf({ prompt_cache_key: 'thread-42' }); // 'thread-42'
 */
export function clientSessionOf(body: Record<string, unknown>): string | undefined {
  const userId = isRecord(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof userId === 'string') {
    const session = /_session_([\w-]+)$/.exec(userId);
    if (session) return `session_${session[1]}`;
  }
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key) return body.prompt_cache_key;
  if (typeof body.user === 'string' && body.user) return body.user;
  return undefined;
}

/**
 * True for the output of a spillway_expand call (directly, or through an MCP prefix such as
 * `mcp__spillway__spillway_expand`): it is never shrunk again.
 *
 * @example
 * isExpandTool('mcp__spillway__spillway_expand'); // true
 */
export function isExpandTool(name: string): boolean {
  // Claude Code: mcp__spillway__spillway_expand; Gemini CLI: mcp_spillway_spillway_expand.
  return /(?:^|__|^mcp_\w*_)spillway_expand$/.test(name);
}

/**
 * The `apply` of a request view: writes new contents (by result index) into the objects that
 * hold them, in place, under `field`, converted to the API's form; returns the edits, so the
 * body can be rewritten by splicing them into its original bytes.
 *
 * @example
 * const apply = writeBack(slots, 'content');
 * apply(new Map([[0, 'shorter']]));
 */
export function writeBack(
  slots: readonly Record<string, unknown>[],
  field: string,
  convert: (content: Content) => unknown = (content) => content,
): (contents: ReadonlyMap<number, Content>) => JsonEdit[] {
  return (contents) => {
    const edits: JsonEdit[] = [];
    for (const [i, content] of contents) {
      const slot = slots[i];
      if (!slot) continue;
      const value = convert(content);
      slot[field] = value;
      edits.push({ holder: slot, field, value });
    }
    return edits;
  };
}

/** Arguments longer than this are not parsed (nothing a rule reads needs them). */
const MAX_INPUT_CHARS = 64 * 1024;

/**
 * A tool call's arguments as a value: JSON arguments (OpenAI sends a string) parsed, objects
 * as they are; undefined when absent, too long, or not JSON.
 *
 * @example
 * callInput('{"command":"npm test"}'); // { command: 'npm test' }
 * callInput({ file_path: 'src/a.ts' }); // { file_path: 'src/a.ts' }
 */
export function callInput(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? undefined;
  if (raw.length > MAX_INPUT_CHARS) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** The calls of a request by id: the tool's name, its arguments, and the words said before it. */
export type CallTable = Map<string, { name: string; input: unknown; said?: string | undefined }>;

// Enough of each person's latest words to name a test, a symbol or a file.
const MAX_SAID_CHARS = 2000;
// How much of one message is read for them (client wrappers included, before they are left out).
const READ_CHARS = 64 * 1024;

// What clients put into a user message that the person did not say: Claude Code's reminders,
// Codex's environment and instructions, slash commands' wrappers.
const NOT_SAID =
  /<(system-reminder|environment_context|user_instructions|command-message|command-name|local-command-stdout)>[\s\S]*?<\/\1>/g;

/**
 * The latest words of the user and of the assistant as a conversation is read in order, for
 * the calls made after them: what the person asked about, what the model said it would look
 * for. A result's relevance is scored against them (see ToolResult.said), and they are fixed
 * for a call however the conversation goes on, so its collapse stays the same.
 *
 * @example
 * const words = new LatestWords();
 * words.hear('user', 'Why does test_charge fail?');
 * words.now(); // 'Why does test_charge fail?'
 */
export class LatestWords {
  private user = '';
  private assistant = '';

  /** Takes in what `role` said: a string, text blocks or parts (thoughts and tool blocks skipped). */
  hear(role: unknown, said: unknown): void {
    const user = role === 'user';
    if (!user && role !== 'assistant' && role !== 'model') return;
    // Every request carries the whole conversation again: a pasted 5 MB log is read this far only.
    const all = saidText(said);
    const window = user ? all.slice(0, READ_CHARS) : all.slice(-READ_CHARS);
    const text = window.replace(NOT_SAID, '').trim();
    if (!text) return;
    if (user) this.user = text.slice(0, MAX_SAID_CHARS);
    else this.assistant = text.slice(-MAX_SAID_CHARS);
  }

  /** The latest words of each, the user's first; undefined before anyone said anything. */
  now(): string | undefined {
    return [this.user, this.assistant].filter(Boolean).join('\n') || undefined;
  }
}

/** The text of a message's content: a string, or its text blocks and parts joined. */
function saidText(said: unknown): string {
  if (typeof said === 'string') return said;
  if (!Array.isArray(said)) return '';
  return said
    .filter(
      (b) =>
        isRecord(b) &&
        typeof b.text === 'string' &&
        b.thought !== true &&
        (b.type === undefined || b.type === 'text' || b.type === 'input_text' || b.type === 'output_text'),
    )
    .map((b) => (b as { text: string }).text)
    .join('\n');
}

/**
 * The tool result answering call `id`, named (and with its arguments) from the calls seen
 * before it.
 *
 * @example
 * resultOf('toolu_1', calls, 'output', 3); // { id: 'toolu_1', tool: 'Bash', content: 'output', position: 3, input: {...} }
 */
export function resultOf(
  id: string,
  calls: CallTable,
  content: Content,
  position: number,
  isError = false,
): ToolResult {
  const call = calls.get(id);
  const tool = call?.name ?? '';
  return {
    id,
    tool,
    content,
    position,
    ...(call?.input !== undefined ? { input: call.input } : {}),
    ...(call?.said ? { said: call.said } : {}),
    ...(isError ? { isError: true } : {}),
    ...(isExpandTool(tool) ? { isExpandOutput: true } : {}),
  };
}
