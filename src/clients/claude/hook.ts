import { homedir } from 'node:os';
import { join } from 'node:path';
import { recordAtSource } from '../../store/index.js';
import { type HookContext, type HookInput, objectField, stringField } from '../hook-io.js';

/** Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR?.trim() || join(env.HOME || homedir(), '.claude');
}

/**
 * Claude Code's PostToolUse hook for Bash. Claude Code keeps a Bash output over 30,000
 * characters in `~/.claude/projects/.../tool-results/ID.txt` and sends the model a 2 KB
 * preview (`<persisted-output>`); this reads that file (only inside Claude Code's projects
 * folder, see readClientFile), stashes it, and hands back the collapse as `updatedToolOutput`,
 * which Claude Code sends in the preview's place. Any other result: no answer, no change.
 *
 * @example
 * const answer = await claudeHook(JSON.parse(stdin), ctx); // { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: {...} } }
 */
export async function claudeHook(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  if (input.hook_event_name !== 'PostToolUse' || input.tool_name !== 'Bash') return undefined;
  const response = objectField(input, 'tool_response');
  const path = stringField(response, 'persistedOutputPath');
  if (!response || path === undefined) return undefined;
  const { readClientFile } = await import('../client-file.js');
  const file = await readClientFile(path, {
    root: join(claudeDir(ctx.env), 'projects'),
    preview: stringField(response, 'stdout') ?? '',
  });
  if ('refused' in file) return { systemMessage: `spillway left this output as it was: ${file.refused}` };
  // The collapse is loaded only for an output Claude Code saved: every other call stays quick.
  const [{ collapseOutput, SOURCE_MAX_TOKENS }, { recordOwnOutput }] = await Promise.all([
    import('../../collapse/output.js'),
    import('../../collapse/own-outputs.js'),
  ]);
  const store = await ctx.store();
  const out = await collapseOutput(file.bytes, {
    store,
    tool: 'Bash',
    budget: SOURCE_MAX_TOKENS,
    // The command: lines naming what it asked for (a test, a file) are kept too.
    input: objectField(input, 'tool_input'),
  });
  if (out.step !== 'acted') return undefined;
  const stdout = `${out.text}\n[Claude Code also saved the full output to ${path}]`;
  // Claude Code sends this text as it is: recorded, the proxy knows it as spillway's own.
  await recordOwnOutput(store, stdout);
  if (out.id !== undefined)
    await recordAtSource(store, {
      at: new Date().toISOString(),
      by: 'claude',
      how: 'collapse',
      whole: Math.ceil(file.bytes.length / 4),
      shown: Math.ceil(Buffer.byteLength(stdout) / 4),
      id: out.id,
    });
  const { persistedOutputPath: _path, persistedOutputSize: _size, ...rest } = response;
  return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: { ...rest, stdout } } };
}
