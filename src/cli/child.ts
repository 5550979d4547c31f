import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';

/**
 * Splits `[options] [--] COMMAND ARGS...`: the command starts at `--` or the first argument
 * that is not an option (`valueOptions` take the argument after them).
 *
 * @example
 * splitCommand(['--tokens', '900', '--', 'make', '-k'], new Set(['--tokens'])); // { options: ['--tokens', '900'], command: ['make', '-k'] }
 */
export function splitCommand(
  argv: string[],
  valueOptions: ReadonlySet<string>,
): { options: string[]; command: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return { options: argv.slice(0, i), command: argv.slice(i + 1) };
    if (!arg.startsWith('-')) return { options: argv.slice(0, i), command: argv.slice(i) };
    if (valueOptions.has(arg)) i++;
  }
  return { options: argv, command: [] };
}

/**
 * The exit status a shell gives: the code, or 128+N for a signal N.
 *
 * @example
 * statusOf(null, 'SIGTERM'); // 143
 */
export const statusOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1);

/**
 * Passes SIGINT, SIGTERM and SIGHUP on to the child while it runs; returns the undo.
 *
 * @example
 * const unforward = forwardSignals(child);
 * child.on('exit', unforward);
 */
export function forwardSignals(child: ChildProcess): () => void {
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, () => child.kill(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return () => {
    for (const [s, h] of handlers) process.off(s, h);
  };
}
