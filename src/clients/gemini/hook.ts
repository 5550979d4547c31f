import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordAtSource } from '../../store/index.js';
import { cutNote, NOTE_MAX_CHARS } from '../cut-note.js';
import { type HookContext, type HookInput, objectField, stringField } from '../hook-io.js';

/** Gemini CLI's own cut: over this many characters (its default), it keeps the first 20% and the last 80%. */
export const GEMINI_CUT_CHARS = 40_000;
/** What Gemini CLI wraps an AfterTool hook's context in (`\n\n<hook_context>…</hook_context>`). */
const CONTEXT_FRAME = '\n\n<hook_context></hook_context>'.length;
/** The note takes at most this share of what Gemini CLI shows, and at most NOTE_MAX_CHARS. */
const NOTE_SHARE = 0.1;

/** `tools.truncateToolOutputThreshold` from the project's settings, else the user's, else the default. */
async function cutChars(env: NodeJS.ProcessEnv, cwd: string | undefined): Promise<number> {
  const { readJsonc } = await import('../config-text.js');
  const files = [
    cwd && join(cwd, '.gemini/settings.json'),
    env.HOME && join(env.HOME, '.gemini/settings.json'),
  ];
  for (const file of files) {
    if (!file) continue;
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    try {
      const tools = readJsonc(text, file).tools as Record<string, unknown> | undefined;
      if (typeof tools?.truncateToolOutputThreshold === 'number') return tools.truncateToolOutputThreshold;
    } catch {}
  }
  return GEMINI_CUT_CHARS;
}

// Gemini CLI frames a shell output for the model: the output after `Output: `, its warning when
// it kept only the last 16 MB, then lines of its own (exit code, signal, process group) and the
// closing tag.
const FRAME =
  /^<untrusted_context>\nOutput: ([\s\S]*?)\n?(?:\n\[GEMINI_CLI_WARNING: [^\n]*\]\n)?(?:(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*\n)*<\/untrusted_context>$/;

/**
 * The command's own output inside Gemini CLI's frame, as it printed it (its last newline Gemini
 * CLI keeps), or the whole text when it is not framed so.
 *
 * @example
 * shellOutputOf('<untrusted_context>\nOutput: hi\n\nProcess Group PGID: 7\n</untrusted_context>'); // 'hi\n'
 */
export function shellOutputOf(llmContent: string): string {
  const m = FRAME.exec(llmContent);
  return m ? `${m[1]}\n` : llmContent;
}

/**
 * Gemini CLI's AfterTool hook on `run_shell_command`. Gemini CLI hands the hook the whole output
 * and, past its own limit (40,000 characters), shows the model only the first 20% and the last
 * 80% of it. For such an output the hook stashes the whole of it and adds, as the hook's context
 * (which Gemini CLI puts at the very end, inside what it shows), a collapse of the whole (what
 * matters from anywhere in it) and the recall id. Nothing is replaced and an output under the limit
 * gets nothing added; the command is never touched, so Gemini CLI's policy rules, its checks and
 * the shell judge and run the command the model wrote.
 *
 * @example
 * await geminiHook({ hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_response: { llmContent } }, ctx);
 */
export async function geminiHook(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  if (input.hook_event_name !== 'AfterTool' || input.tool_name !== 'run_shell_command') return undefined;
  const content = stringField(objectField(input, 'tool_response'), 'llmContent');
  if (content === undefined || content.length <= Math.min(GEMINI_CUT_CHARS, 4096)) return undefined;
  const limit = await cutChars(ctx.env, stringField(input, 'cwd'));
  if (limit <= 0 || content.length <= limit) return undefined;
  // Gemini CLI cuts the output with the note added at its end, inside the part it shows.
  const budget = Math.min(NOTE_MAX_CHARS, Math.floor(limit * NOTE_SHARE)) - CONTEXT_FRAME;
  const store = await ctx.store();
  const whole = Buffer.from(shellOutputOf(content));
  const cut = await cutNote(store, whole, {
    budget,
    tool: 'run_shell_command',
    input: objectField(input, 'tool_input'),
  });
  if (!cut) return undefined;
  const { note, id } = cut;
  // Gemini CLI shows `limit` characters, the note among them.
  const at = new Date().toISOString();
  await recordAtSource(store, {
    at,
    by: 'gemini',
    how: 'note',
    whole: Math.ceil(whole.length / 4),
    shown: Math.ceil(limit / 4),
    id,
  });
  return { hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: note } };
}
