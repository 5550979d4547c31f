import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordAtSource } from '../../store/index.js';
import { stashNote } from '../cut-note.js';
import { type HookContext, type HookInput, objectField, stringField } from '../hook-io.js';

/** Gemini CLI's own cut: over this many characters (its default), it keeps the first 20% and the last 80%. */
export const GEMINI_CUT_CHARS = 40_000;

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

// Gemini CLI frames a shell output for the model (wrapUntrusted): the output after `Output: `
// (its ends trimmed, its warning when it kept only the last 16 MB), then lines of its own (exit
// code, signal, process group) and the closing tag. Inside the frame it writes the closing tag
// as `&lt;/untrusted_context&gt;`, and leaves everything else as it is.
const OPEN = '<untrusted_context>\nOutput: ';
const CLOSE = '</untrusted_context>';
const ESCAPED_CLOSE = '&lt;/untrusted_context&gt;';
const TRAILER =
  /^\n(?:(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*\n)*<\/untrusted_context>$/;
const FRAME =
  /^<untrusted_context>\nOutput: ([\s\S]*?)\n?(?:\n\[GEMINI_CLI_WARNING: [^\n]*\]\n)?(?:(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*\n)*<\/untrusted_context>$/;
const WARNING = /\n\[GEMINI_CLI_WARNING: Output truncated\. [^\n]*\]$/;

/**
 * The command's own output inside Gemini CLI's frame, as it printed it (its last newline, which
 * Gemini CLI trims, given back), or the whole text when it is not framed so. `shown` is the raw
 * output Gemini CLI also hands the hook (`returnDisplay`); it is used when the frame holds
 * exactly it, escaped as Gemini CLI escapes: Gemini CLI's escaping cannot be undone from the
 * frame alone (an output may itself hold `&lt;/untrusted_context&gt;`). Without it, a framed
 * output holding the escaped tag is undefined: no stash is better than one that is not the
 * output.
 *
 * @example
 * shellOutputOf('<untrusted_context>\nOutput: hi\n\nProcess Group PGID: 7\n</untrusted_context>'); // 'hi\n'
 * shellOutputOf('<untrusted_context>\nOutput: &lt;/untrusted_context&gt;\nProcess Group PGID: 7\n</untrusted_context>', '</untrusted_context>'); // '</untrusted_context>\n'
 */
export function shellOutputOf(llmContent: string, shown?: string): string | undefined {
  if (shown !== undefined) {
    const framed = `${OPEN}${shown.replaceAll(CLOSE, ESCAPED_CLOSE)}`;
    if (llmContent.startsWith(framed) && TRAILER.test(llmContent.slice(framed.length))) {
      // Gemini CLI adds its warning before it trims: what precedes the warning kept its end.
      const kept = shown.replace(WARNING, '');
      return kept === shown ? `${shown}\n` : kept;
    }
  }
  const m = FRAME.exec(llmContent);
  if (!m) return llmContent;
  return m[1]?.includes(ESCAPED_CLOSE) ? undefined : `${m[1]}\n`;
}

/**
 * Gemini CLI's AfterTool hook on `run_shell_command`. Gemini CLI hands the hook the whole output
 * and, past its own limit (40,000 characters), shows the model only the first 20% and the last
 * 80% of it. For such an output the hook stashes the whole of it, byte for byte as the command
 * printed it, and adds a note with its size and recall id as the hook's context. Gemini CLI puts
 * that context after its `</untrusted_context>` frame (in `<hook_context>`, angle brackets
 * escaped), where the model does not hold text as untrusted: the note holds spillway's own words
 * only, never a line of the output. Gemini CLI 0.61 has no way for an AfterTool hook to replace
 * a tool's output inside the frame (its hook answer has `additionalContext`, `decision` and
 * `tailToolCallRequest`, nothing else), so Gemini CLI's own head and tail stay what the model
 * sees of the output. An output under the limit gets nothing added; the command is never
 * touched, so Gemini CLI's policy rules, its checks and the shell judge and run the command the
 * model wrote.
 *
 * @example
 * await geminiHook({ hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_response: { llmContent, returnDisplay } }, ctx);
 */
export async function geminiHook(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  if (input.hook_event_name !== 'AfterTool' || input.tool_name !== 'run_shell_command') return undefined;
  const response = objectField(input, 'tool_response');
  const content = stringField(response, 'llmContent');
  if (content === undefined || content.length <= Math.min(GEMINI_CUT_CHARS, 4096)) return undefined;
  const limit = await cutChars(ctx.env, stringField(input, 'cwd'));
  if (limit <= 0 || content.length <= limit) return undefined;
  const output = shellOutputOf(content, stringField(response, 'returnDisplay'));
  if (output === undefined) return undefined;
  const store = await ctx.store();
  const whole = Buffer.from(output);
  const noted = await stashNote(store, whole);
  if (!noted) return undefined;
  const { note, id } = noted;
  // Gemini CLI shows `limit` characters, the note among them.
  await recordAtSource(store, {
    at: new Date().toISOString(),
    by: 'gemini',
    how: 'note',
    whole: Math.ceil(whole.length / 4),
    shown: Math.ceil(limit / 4),
    id,
  });
  return { hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: note } };
}
