import { homedir } from 'node:os';
import { recordAtSource } from '../../store/index.js';
import { cutNote, NOTE_MAX_CHARS } from '../cut-note.js';
import { type HookContext, type HookInput, objectField, stringField } from '../hook-io.js';
import { opencodeOutputDir } from './paths.js';

// opencode's text for an output it cut: this header, then the output's last lines (and, when the
// command timed out or was stopped, a <shell_metadata> block of its own).
const CUT =
  /^\.\.\.output truncated\.\.\.\n\nFull output saved to: [^\n]*\n\n([\s\S]*?)(?:\n\n<shell_metadata>\n[\s\S]*<\/shell_metadata>)?$/;

/** What opencode shows when the lines it keeps from the end are none. */
const NOTHING_SHOWN = '(no output)';

/**
 * opencode's hook (its plugin calls it after a `bash` call opencode cut): opencode keeps the
 * last 2,000 lines or 50 KB of the output and saves the whole to a file. The hook reads that
 * file (only inside opencode's own tool-output folder, and only when it ends with what opencode
 * showed), stashes it, and answers with a note the plugin adds after what opencode shows: a
 * collapse of the whole (the lines that matter from anywhere in it) and the recall id. Nothing
 * opencode shows is taken away.
 *
 * @example
 * await opencodeHook({ tool: 'bash', output, outputPath, args: { command } }, ctx); // { additionalContext }
 */
export async function opencodeHook(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  const shown = stringField(input, 'output');
  const path = stringField(input, 'outputPath');
  if (input.tool !== 'bash' || shown === undefined || path === undefined) return undefined;
  const tail = CUT.exec(shown)?.[1];
  if (tail === undefined) return undefined;
  const { readClientFile } = await import('../client-file.js');
  const root = opencodeOutputDir({ home: ctx.env.HOME || homedir(), env: ctx.env });
  // opencode keeps whole lines from the end: when the last line alone is over its limit (a
  // 200 KB line of JSON) it shows "(no output)", and only the folder vouches for the file.
  const file = await readClientFile(path, tail === NOTHING_SHOWN ? { root } : { root, tail });
  if ('refused' in file) throw new Error(`left the output as it was: ${file.refused}`);
  const store = await ctx.store();
  const cut = await cutNote(store, file.bytes, {
    charLimit: NOTE_MAX_CHARS,
    tool: 'bash',
    input: objectField(input, 'args'),
  });
  if (!cut) return undefined;
  await recordAtSource(store, {
    at: new Date().toISOString(),
    by: 'opencode',
    how: 'note',
    whole: Math.ceil(file.bytes.length / 4),
    shown: Math.ceil((shown.length + cut.note.length) / 4),
    id: cut.id,
  });
  return { additionalContext: cut.note };
}
