import { join } from 'node:path';
import { idPartProblem, MAX_CAPTURE_BYTES, spillwayHome } from '../../store/index.js';
import { shellQuote } from '../spillway-command.js';

/**
 * The most of a command's output the capture keeps on disk: the head of the output, whatever its
 * size. Codex itself keeps the tail (its own cut shows it), which the hook joins to this head.
 */
export const SPOOL_MAX_BYTES = MAX_CAPTURE_BYTES;

/** Where a Codex shell command's output is spooled: the one folder the sandbox may write. */
export function codexSpoolDir(env: NodeJS.ProcessEnv): string {
  return join(spillwayHome(env), 'spool', 'codex');
}

/** The bash startup file setup points Codex's shell commands at (`BASH_ENV`). */
export function codexCaptureScriptPath(env: NodeJS.ProcessEnv): string {
  return join(spillwayHome(env), 'capture', 'codex.bash');
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
 * The bash startup file (`BASH_ENV`) that captures a Codex shell command's whole output, with
 * the command text, the user's shell rules and Codex's sandbox untouched: bash reads it before
 * the command, and, when Codex runs a tool call (its ids in the environment) with output not on a
 * terminal, it sends the command's output (standard error merged in, as Codex shows it) through
 * `tee`, which passes every byte on to Codex as it comes and keeps the first SPOOL_MAX_BYTES in
 * the spool. Where the spool cannot be written (a read-only
 * sandbox) nothing is changed. The user's own `BASH_ENV`, if they had one, is read first.
 *
 * @example
 * codexCaptureScript({ spoolDir: '/home/u/.spillway/spool/codex' }); // '# spillway: ...'
 */
export function codexCaptureScript(options: { spoolDir: string; userBashEnv?: string }): string {
  const dir = shellQuote(options.spoolDir);
  const user = options.userBashEnv
    ? `[ -r ${shellQuote(options.userBashEnv)} ] && . ${shellQuote(options.userBashEnv)}\n`
    : '';
  return `# spillway: keeps a Codex shell command's whole output for its PostToolUse hook.
# Written by "spillway setup codex"; "spillway setup codex --undo" removes it.
${user}__spillway_init=
[ -r /proc/1/comm ] && read -r __spillway_init </proc/1/comm
if [ -z "\${SPILLWAY_CAPTURE-}" ] && [ -n "\${CODEX_TOOL_CALL_ID-}" ] && [ -n "\${CODEX_THREAD_ID-}" ] && [ ! -t 1 ] &&
  [ -z "\${CODEX_SANDBOX-}\${CODEX_SANDBOX_NETWORK_DISABLED-}" ] &&
  case "$__spillway_init" in bwrap* | codex*) false ;; *) true ;; esac; then
  export SPILLWAY_CAPTURE=1
  case "$CODEX_THREAD_ID/$CODEX_TOOL_CALL_ID" in
  *[!A-Za-z0-9_/-]* | */*/*) ;;
  *)
    __spillway_f=${dir}/"$CODEX_THREAD_ID/$CODEX_TOOL_CALL_ID"
    if { [ -d ${dir}/"$CODEX_THREAD_ID" ] || mkdir -m 700 -p ${dir}/"$CODEX_THREAD_ID" 2>/dev/null; } &&
      : 2>/dev/null >"$__spillway_f.out"; then
      exec > >(exec tee -p >(exec head -c ${SPOOL_MAX_BYTES / 2} >>"$__spillway_f.out")) \
        2> >(exec tee -p >(exec head -c ${SPOOL_MAX_BYTES / 2} >>"$__spillway_f.out") >&2)
    fi
    unset __spillway_f
    ;;
  esac
fi
unset __spillway_init
`;
}
