import { type HookContext, type HookInput, objectField, stringField } from './hook-io.js';
import { isWrappedInRun, wrapInRun } from './spillway-command.js';

/** The shell tool's input with its command run through `spillway run`, or undefined to leave it. */
function wrappedInput(input: HookInput, event: string, tool: string, ctx: HookContext) {
  if (input.hook_event_name !== event || input.tool_name !== tool) return undefined;
  const toolInput = objectField(input, 'tool_input');
  const command = stringField(toolInput, 'command');
  if (!toolInput || command === undefined || isWrappedInRun(command)) return undefined;
  return { ...toolInput, command: wrapInRun(command, ctx.spillway) };
}

/**
 * Codex's PreToolUse hook for its shell tool: rewrites the command to run through
 * `spillway run`, so spillway sees the whole output before Codex cuts it to about 10,000
 * tokens. Codex takes a rewritten input only with `permissionDecision: "allow"`, which lets the
 * hook chain go on; approval and the sandbox still apply to the command.
 *
 * @example
 * codexHook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' } }, ctx);
 */
export function codexHook(input: HookInput, ctx: HookContext): object | undefined {
  const toolInput = wrappedInput(input, 'PreToolUse', 'Bash', ctx);
  return (
    toolInput && {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: toolInput,
      },
    }
  );
}

/**
 * Gemini CLI's BeforeTool hook for `run_shell_command`: rewrites the command to run through
 * `spillway run`, so spillway sees the whole output before Gemini CLI keeps only its first
 * 8,000 and last 32,000 characters.
 *
 * @example
 * geminiHook({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'make' } }, ctx);
 */
export function geminiHook(input: HookInput, ctx: HookContext): object | undefined {
  const toolInput = wrappedInput(input, 'BeforeTool', 'run_shell_command', ctx);
  return toolInput && { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: toolInput } };
}
