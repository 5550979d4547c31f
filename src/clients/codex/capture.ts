import { join } from 'node:path';
import { spillwayHome } from '../../home/index.js';
import { idPartProblem, MAX_CAPTURE_BYTES } from '../../store/index.js';
import type { SetupOptions } from '../setup-plan.js';
import { shellQuote } from '../spillway-command.js';
import { codexDir } from './paths.js';

/**
 * The most of a command's output the capture keeps on disk: the head of the output, whatever its
 * size. Codex itself keeps the tail (its own cut shows it), which the hook joins to this head.
 */
export const SPOOL_MAX_BYTES = MAX_CAPTURE_BYTES;

/** Where a Codex shell command's output is spooled. */
export function codexSpoolDir(env: NodeJS.ProcessEnv): string {
  return join(spillwayHome(env), 'spool', 'codex');
}

/**
 * The bash startup file setup points Codex's shell commands at (`BASH_ENV`). It lives in Codex's
 * own folder because Codex's sandbox keeps that folder read-only inside every writable root
 * (workspace-write from `$HOME` included): a sandboxed command cannot change the file that a
 * later command outside the sandbox reads.
 */
export function codexCaptureScriptPath(options: Pick<SetupOptions, 'home' | 'env'>): string {
  return join(codexDir(options), 'spillway', 'capture.bash');
}

/**
 * The spool files of one Codex tool call, or undefined when the ids are not of the form Codex
 * gives them (they become path parts, and the command's environment can be shaped by anyone).
 *
 * @example
 * codexSpoolFiles(env, '01a2-thread', 'call_run'); // { output: '.../spool/codex/01a2-thread/call_run.out' }
 */
export function codexSpoolFiles(
  env: NodeJS.ProcessEnv,
  thread: string,
  call: string,
): { output: string } | undefined {
  if (idPartProblem(thread) !== null || idPartProblem(call) !== null) return undefined;
  return { output: join(codexSpoolDir(env), thread, `${call}.out`) };
}

/**
 * The bash startup file (`BASH_ENV`) that keeps a Codex shell command's whole output for the
 * hook, and is otherwise invisible to the command:
 *
 * - it acts only in the shell Codex itself started (its parent is Codex, outside Codex's sandbox,
 *   Codex's call ids set, output not on a terminal); a bash the command starts never reads it,
 *   because it takes itself out of the environment (`BASH_ENV` unset, or back to the user's own,
 *   which it then reads as bash would have);
 * - each stream goes through its own `tee` that is no child of the command's shell (started
 *   from a subshell, reading a FIFO removed once open): `$!`, `wait` and `jobs` see nothing of it,
 *   and Codex gets every byte on the stream it was written to, as it comes; the first
 *   SPOOL_MAX_BYTES / 2 of each stream go to the spool (`head -c`, however long a background
 *   process goes on writing), in files it makes afresh (none there before, none a link);
 * - `set -x` and `set -v` are off while it runs and restored after, no variable of its own is left
 *   set (one function, its name checked free first), and no file is written outside the spool.
 *
 * @example
 * codexCaptureScript({ spoolDir: '/home/u/.spillway/spool/codex' }); // '# spillway: ...'
 */
export function codexCaptureScript(options: {
  spoolDir: string;
  userBashEnv?: string;
  /** The most the spool keeps of one call (half for each stream); SPOOL_MAX_BYTES unless told. */
  spoolBytes?: number;
}): string {
  const dir = shellQuote(options.spoolDir);
  const half = Math.floor((options.spoolBytes ?? SPOOL_MAX_BYTES) / 2);
  const user = options.userBashEnv ? shellQuote(options.userBashEnv) : undefined;
  // One reader: a subshell that opens the FIFO (meeting the shell's open for writing), removes it
  // and becomes tee; started with `( ... & )` so the command's shell never has it as a child.
  const reader = (fifo: string, out: string) =>
    `( exec <"$f.${fifo}" && command rm -f "$f.${fifo}" && umask 077 && exec tee -p >(exec head -c ${half} >>"$f.out") ${out} & )`;
  return `# spillway: keeps a Codex shell command's whole output for its PostToolUse hook.
# Written by "spillway setup codex"; "spillway setup codex --undo" removes it.
{ BASH_ENV=$-; builtin set +xv; } 2>/dev/null
if ! builtin declare -F __spillway_codex_capture >/dev/null; then
__spillway_codex_capture() {
  local f= p=
  [ -n "\${CODEX_THREAD_ID-}" ] && [ -n "\${CODEX_TOOL_CALL_ID-}" ] && [ ! -t 1 ] &&
    [ -z "\${CODEX_SANDBOX-}\${CODEX_SANDBOX_NETWORK_DISABLED-}" ] || return 0
  case "$CODEX_THREAD_ID$CODEX_TOOL_CALL_ID" in *[!A-Za-z0-9_-]*) return 0 ;; esac
  builtin read -r p 2>/dev/null </proc/$PPID/comm || return 0
  case "$p" in codex*) ;; *) return 0 ;; esac
  p=
  builtin read -r p 2>/dev/null </proc/1/comm
  case "$p" in bwrap* | codex*) return 0 ;; esac
  builtin type -P tee head mkfifo rm >/dev/null || return 0
  f=${dir}/"$CODEX_THREAD_ID"
  { [ -d "$f" ] || command mkdir -m 700 -p "$f" 2>/dev/null; } && [ ! -L "$f" ] || return 0
  f=$f/"$CODEX_TOOL_CALL_ID"
  ( set -C; umask 077; : >"$f.out" ) 2>/dev/null || return 0
  command mkfifo -m 600 "$f.1" "$f.2" 2>/dev/null || { command rm -f "$f.1" "$f.2"; return 0; }
  ${reader('1', '')}
  ${reader('2', '>&2')}
  exec >"$f.1" 2>"$f.2"
}
__spillway_codex_capture
builtin unset -f __spillway_codex_capture
fi
{ case $BASH_ENV in *x*) builtin set -x ;; esac; case $BASH_ENV in *v*) builtin set -v ;; esac; ${
    user ? `BASH_ENV=${user}; } 2>/dev/null; . ${user}` : 'builtin unset BASH_ENV; } 2>/dev/null'
  }
`;
}
