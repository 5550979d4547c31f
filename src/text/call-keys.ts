import { isRecord } from './json-values.js';
import type { ToolResult } from './tool-result.js';

/**
 * What a tool call did, as far as superseding goes: read a file (with the part it read), edited
 * files, or ran a command. Decided from the call's name and arguments by general rules that
 * cover Claude Code, Codex, Gemini CLI, OpenHands and SWE-agent style tools, plus any tool
 * names a config lists as reads.
 */
export type CallKey =
  | { kind: 'read'; path: string; part: string }
  | { kind: 'edit'; paths: string[] }
  | { kind: 'command'; command: string };

/** Tools whose result is a file's content. */
export const READ_TOOLS: readonly string[] = [
  'Read',
  'read_file',
  'ReadFile',
  'read',
  'view',
  'View',
  'open_file',
  'cat',
  'read_many_files',
];
const EDIT_TOOLS = new Set([
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'edit_file',
  'write_file',
  'create_file',
  'replace',
  'replace_in_file',
  'apply_patch',
  'edit',
]);
/** Tools with a `command` argument that view or edit (Anthropic's text editor tool, OpenHands). */
const EDITOR_TOOLS = new Set(['str_replace_based_edit_tool', 'str_replace_editor', 'text_editor']);
const SHELL_TOOLS = new Set([
  'Bash',
  'bash',
  'shell',
  'exec_command',
  'run_shell_command',
  'run_terminal_cmd',
  'execute_bash',
  'run_command',
  'local_shell_call',
  'terminal',
]);

const PATH_KEYS = ['file_path', 'path', 'absolute_path', 'file', 'target_file', 'filename', 'notebook_path'];
const PART_KEYS = ['offset', 'limit', 'view_range', 'start_line', 'end_line', 'line_start', 'line_end'];

function pathOf(input: Record<string, unknown>): string | undefined {
  for (const key of PATH_KEYS)
    if (typeof input[key] === 'string' && input[key] !== '') return input[key] as string;
  return undefined;
}

function partOf(input: Record<string, unknown>): string {
  return PART_KEYS.filter((k) => input[k] !== undefined)
    .map((k) => `${k}=${JSON.stringify(input[k])}`)
    .join(',');
}

/** The shell command a call ran, as one string (Codex sends ["bash", "-lc", "..."]). */
function commandOf(input: unknown): string | undefined {
  const raw = isRecord(input) ? (input.command ?? input.cmd) : input;
  if (typeof raw === 'string') return raw.trim();
  if (Array.isArray(raw) && raw.every((p) => typeof p === 'string')) {
    const parts = raw as string[];
    const script =
      parts.length === 3 && /^(?:ba|z)?sh$/.test(parts[0] ?? '') && /^-l?c$/.test(parts[1] ?? '');
    return (script ? (parts[2] as string) : parts.join(' ')).trim();
  }
  return undefined;
}

// One file read by a shell: `cat F`, `sed -n 'A,Bp' F`, `head -n N F`, `tail -n N F`, `nl -ba F`.
const SHELL_READ =
  /^(?:cat\s+(?<cat>[^\s|;&<>]+)|sed\s+-n\s+['"]?(?<range>\d+,\d+p)['"]?\s+(?<sed>[^\s|;&<>]+)|(?<ht>head|tail)\s+(?:-n\s*)?(?<n>-?\d+)\s+(?<htf>[^\s|;&<>]+)|nl\s+-ba\s+(?<nl>[^\s|;&<>]+))\s*$/;

// Files a patch touches (Codex's apply_patch format and unified diffs).
const PATCH_FILE = /^(?:\*\*\* (?:Add|Update|Delete) File: (.+)|\+\+\+ b\/(.+))$/gm;

/**
 * What a call did, or undefined when it is none of a read, an edit or a command.
 *
 * @example
 * callKeyOf({ id: 't1', tool: 'Read', content: '', position: 0, input: { file_path: 'src/a.ts' } });
 * // { kind: 'read', path: 'src/a.ts', part: '' }
 * callKeyOf({ id: 'c1', tool: 'shell', content: '', position: 0, input: { command: ['bash', '-lc', 'npm test'] } });
 * // { kind: 'command', command: 'npm test' }
 */
export function callKeyOf(
  result: Pick<ToolResult, 'tool' | 'input'>,
  readTools: readonly string[] = [],
): CallKey | undefined {
  const { tool, input } = result;
  const args = isRecord(input) ? input : {};
  if (READ_TOOLS.includes(tool) || readTools.includes(tool)) {
    const path = pathOf(args);
    return path ? { kind: 'read', path, part: partOf(args) } : undefined;
  }
  if (EDITOR_TOOLS.has(tool)) {
    const path = pathOf(args);
    if (!path) return undefined;
    return args.command === 'view'
      ? { kind: 'read', path, part: partOf(args) }
      : { kind: 'edit', paths: [path] };
  }
  if (EDIT_TOOLS.has(tool)) {
    const path = pathOf(args);
    if (path) return { kind: 'edit', paths: [path] };
    const patch =
      typeof input === 'string' ? input : typeof args.input === 'string' ? args.input : args.patch;
    if (typeof patch !== 'string') return undefined;
    const paths = [...patch.matchAll(PATCH_FILE)].map((m) => (m[1] ?? m[2] ?? '').trim()).filter(Boolean);
    return paths.length ? { kind: 'edit', paths } : undefined;
  }
  if (SHELL_TOOLS.has(tool)) {
    const command = commandOf(input);
    if (!command) return undefined;
    const read = SHELL_READ.exec(command)?.groups;
    if (read) {
      const path = read.cat ?? read.sed ?? read.htf ?? read.nl ?? '';
      return { kind: 'read', path, part: read.range ?? (read.ht ? `${read.ht} ${read.n}` : '') };
    }
    return { kind: 'command', command };
  }
  return undefined;
}

/**
 * A path as {@link samePath} compares it: without a leading `./`.
 *
 * @example
 * cleanPath('./src/a.ts'); // 'src/a.ts'
 */
export function cleanPath(path: string): string {
  return path.startsWith('./') ? path.slice(2) : path;
}

/**
 * Two paths name one file when they are equal or one ends with the other after a '/'
 * (`./a.ts`, `/repo/a.ts`).
 *
 * @example
 * samePath('./a.ts', '/repo/a.ts'); // true
 */
export function samePath(a: string, b: string): boolean {
  const x = cleanPath(a);
  const y = cleanPath(b);
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}
