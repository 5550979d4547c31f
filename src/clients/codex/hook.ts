import { rm, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordAtSource } from '../../store/index.js';
import { stashNote } from '../cut-note.js';
import { type HookContext, type HookInput, stringField } from '../hook-io.js';
import { codexSpoolDir, codexSpoolFiles, SPOOL_MAX_BYTES } from './capture.js';
import { sweepCodexSpools } from './spool-sweep.js';

/** What Codex showed of an output it cut: its head and tail, as the model would have seen them. */
export interface CodexCut {
  head: string;
  tail: string;
}

// Codex says how many lines the output had, or, past what it keeps in memory, how many bytes it
// dropped from the middle before cutting again.
const CUT_HEADER =
  /^Warning: truncated output \(original token count: \d+\)\n(?:Total output lines: \d+|\.\.\. \d+ bytes omitted \.\.\.)\n\n/;
const CUT_MARK = /…\d+ (?:tokens|chars) truncated…/;

/**
 * Codex's own cut of a shell output (`Warning: truncated output ...`, head, `…N tokens
 * truncated…` or `…N chars truncated…`, tail), or undefined when Codex showed the output whole.
 *
 * @example
 * parseCodexCut('Warning: truncated output (original token count: 9)\nTotal output lines: 3\n\na…5 tokens truncated…z'); // { head: 'a', tail: 'z' }
 */
export function parseCodexCut(shown: string): CodexCut | undefined {
  const header = CUT_HEADER.exec(shown);
  if (!header) return undefined;
  const body = shown.slice(header[0].length);
  const mark = CUT_MARK.exec(body);
  if (!mark) return undefined;
  return { head: body.slice(0, mark.index), tail: body.slice(mark.index + mark[0].length) };
}

/**
 * The whole output the capture spooled for this call, checked against what Codex itself saw:
 * the spool is written by the command's own shell (and anything the command runs can write it),
 * so it is used only when it begins with Codex's head and ends with Codex's tail; past a
 * stream's share of the spool, Codex's own tail is joined to the spooled head. `tee` may still be
 * writing the last bytes when Codex runs the hook, so a spool short of the tail is read again a
 * few times.
 */
async function spooledOutput(
  path: string,
  cut: CodexCut,
  env: NodeJS.ProcessEnv,
): Promise<Buffer | undefined> {
  const { readClientFile } = await import('../client-file.js');
  const tail = Buffer.from(cut.tail);
  for (let attempt = 0; attempt < 8; attempt++) {
    const file = await readClientFile(path, { root: codexSpoolDir(env), preview: cut.head });
    if ('refused' in file) return undefined;
    if (file.bytes.subarray(file.bytes.length - tail.length).equals(tail)) return file.bytes;
    // A stream past its share of the spool: the rest of it is Codex's own tail.
    if (file.bytes.length >= SPOOL_MAX_BYTES / 2)
      return Buffer.concat([
        file.bytes,
        Buffer.from(
          `\n[spillway: the middle of this output past ${SPOOL_MAX_BYTES / 2} bytes was not kept]\n…`,
        ),
        tail,
      ]);
    await sleep(25);
  }
  return undefined;
}

/**
 * Codex's PostToolUse hook on its shell tool. When Codex cut an output (its own limit, about
 * 10,000 tokens or bytes by model) and the capture (codex-capture.ts) spooled the whole of it,
 * the hook stashes the whole output and adds a note with its size and recall id
 * (`additionalContext`).
 * Codex turns that into a developer message, a voice the model trusts more than a tool's output,
 * so the note holds spillway's own words only, never a line of the output. Codex 0.171 could
 * replace the output instead (`decision: "block"`), but that drops Codex's own lines (its exit
 * code among them), fails a call made from its `exec` code tool, and shows the user a blocked
 * hook: what Codex shows is never replaced, so the model sees at least what Codex alone would
 * show. An output Codex showed whole, or one with no spool that checks out (a read-only sandbox,
 * a terminal, another shell), gets nothing added. The command itself is never touched. Spools
 * left over by calls whose hook never ran are swept (spool-sweep.ts).
 *
 * @example
 * await codexHook({ hook_event_name: 'PostToolUse', tool_name: 'Bash', session_id, tool_use_id, tool_response }, ctx);
 */
export async function codexHook(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  if (input.hook_event_name !== 'PostToolUse' || input.tool_name !== 'Bash') return undefined;
  const files = codexSpoolFiles(
    ctx.env,
    stringField(input, 'session_id') ?? '',
    stringField(input, 'tool_use_id') ?? '',
  );
  if (!files) return undefined;
  try {
    const shown = typeof input.tool_response === 'string' ? input.tool_response : undefined;
    const cut = shown === undefined ? undefined : parseCodexCut(shown);
    if (shown === undefined || !cut) return undefined;
    const whole = await spooledOutput(files.output, cut, ctx.env);
    if (!whole) return undefined;
    const store = await ctx.store();
    const noted = await stashNote(store, whole);
    if (!noted) return undefined;
    const { note, id } = noted;
    await recordAtSource(store, {
      at: new Date().toISOString(),
      by: 'codex',
      how: 'note',
      whole: Math.ceil(whole.length / 4),
      shown: Math.ceil((Buffer.byteLength(shown) + Buffer.byteLength(note)) / 4),
      id,
    });
    return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: note } };
  } finally {
    await rm(files.output, { force: true });
    await rmdir(dirname(files.output)).catch(() => {}); // only when no other call of the thread is spooled
    // Spools whose hook never ran (a session ended with a command still running) go in time.
    await sweepCodexSpools(codexSpoolDir(ctx.env)).catch(() => {});
  }
}
