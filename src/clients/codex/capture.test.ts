import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexCaptureScript } from './capture.js';

// The capture script under real bash, as Codex runs it: `bash -c CMD` started by a process named
// codex, its call ids in the environment, output on pipes. Each command runs with the capture
// and with bash alone (spillway never set up), and what the command printed, on which stream,
// and its exit code must be the same.

const which = (name: string) =>
  spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
const BASH = which('bash');
const ZSH = which('zsh');
const root = mkdtempSync(join(tmpdir(), 'codex-capture-'));
afterAll(() => spawnSync('rm', ['-rf', root]));

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

let machines = 0;
/** A folder with the capture script (private, as setup writes it), its spool, and `codex`. */
function machine(options: { userBashEnv?: string; spoolBytes?: number } = {}) {
  const dir = join(root, `m${machines++}`);
  const spool = join(dir, 'spool');
  const home = join(dir, 'home');
  for (const d of [join(dir, 'capture'), spool, home]) mkdirSync(d, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o755); // others may enter (runuser), the capture folder stays private
  const script = join(dir, 'capture', 'capture.bash');
  writeFileSync(script, codexCaptureScript({ spoolDir: spool, ...options }), { mode: 0o600 });
  // A process named codex that starts the command's shell as its child, as Codex does.
  symlinkSync(BASH, join(dir, 'codex'));
  return { dir, spool, home, script };
}

/**
 * Runs `command` as Codex would, under `shell` (bash, or a zsh login user's zsh, which leaves
 * BASH_ENV to the bash a command starts); `bashEnv` is BASH_ENV, none for bash alone.
 */
function run(
  m: ReturnType<typeof machine>,
  command: string,
  options: { bashEnv?: string; shell?: string; input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const shell = options.shell ?? BASH;
  const child = spawn(
    join(m.dir, 'codex'),
    [
      '-c',
      'if [ -n "$0" ]; then BASH_ENV=$0 "$2" -c "$1"; else "$2" -c "$1"; fi; exit $?',
      options.bashEnv ?? '',
      command,
      shell,
    ],
    {
      cwd: m.home,
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: m.home,
        LANG: 'C.UTF-8',
        CODEX_THREAD_ID: 'thread-1',
        CODEX_TOOL_CALL_ID: 'call_1',
        __spillway_init: 'mine',
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  // A command that never reads its input may exit before it is written: EPIPE is no failure.
  child.stdin.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  if (options.input === undefined) child.stdin.end();
  else child.stdin.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  // A hang is a failure: the whole process group goes after 15 s (the code is then null).
  const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), 15_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ stdout, stderr, code });
    }),
  );
}

const spooled = (m: ReturnType<typeof machine>) => {
  const dir = join(m.spool, 'thread-1');
  return existsSync(dir) ? readdirSync(dir) : [];
};

/** The spool once `head` has written the `size` bytes it was given (it may end after Codex's pipe). */
async function spoolOf(m: ReturnType<typeof machine>, size: number): Promise<string> {
  const path = join(m.spool, 'thread-1/call_1.out');
  for (let i = 0; i < 100 && statSync(path).size < size; i++) await new Promise((r) => setTimeout(r, 20));
  expect(statSync(path).size).toBe(size);
  return readFileSync(path, 'utf8');
}

const SAME_AS_BASH: { name: string; command: string; input?: string }[] = [
  {
    name: 'a nested bash that waits for its jobs, piped',
    command: `bash -c 'sleep 0.1 & sleep 0.1 & wait; echo all-done' | cat`,
  },
  {
    name: 'a script that waits for its jobs, into a file',
    command: `printf '#!${BASH}\\nsleep 0.1 & sleep 0.1 & wait; echo all-done\\n' >par.sh; chmod +x par.sh; ./par.sh >out.log; cat out.log`,
  },
  { name: 'wait in the command itself', command: 'sleep 0.1 & wait; echo all-done' },
  {
    name: '$! before and after a job',
    command: 'echo "[$!]"; sleep 0 & p=$!; wait "$p"; echo "waited $?"; jobs',
  },
  { name: 'the environment', command: 'env | sort' },
  { name: 'the environment of a nested bash', command: `bash -c 'env | sort; echo "\${BASH_ENV-none}"'` },
  {
    name: 'a variable of the same name as spillway’s',
    command: 'echo "$__spillway_init"; declare -F',
  },
  {
    name: 'xtrace, in the command and in a nested bash',
    command: `set -x; echo traced; bash -x -c 'echo nested'`,
  },
  { name: 'the shell’s options', command: 'echo "$-"; shopt -p; set -o' },
  { name: 'a trap on exit', command: `trap 'echo bye' EXIT; echo hi` },
  { name: 'exec', command: 'echo before; exec printf "replaced\\n"' },
  {
    name: 'a command reading its input',
    command: 'read -r line; echo "got $line"; cat',
    input: 'typed\nrest\n',
  },
  { name: 'both streams and an exit code', command: 'echo out; echo err >&2; exit 3' },
  { name: 'a job left running', command: '(sleep 0.3; echo late) & echo early' },
];

describe('the capture script, under real bash, compared with bash alone', () => {
  it.each(SAME_AS_BASH)('$name: the same, and the whole output spooled', async ({ command, input }) => {
    const m = machine();
    const alone = await run(m, command, { input });
    expect(alone.code, 'bash alone finishes').not.toBeNull();
    const captured = await run(m, command, { bashEnv: m.script, input });
    expect(captured).toEqual(alone);
    // Standard output and error, each whole, in the spool; the FIFOs are gone.
    expect(spooled(m)).toEqual(['call_1.out']);
    const spool = await spoolOf(m, Buffer.byteLength(alone.stdout + alone.stderr));
    for (const line of `${alone.stdout}${alone.stderr}`.split('\n')) expect(spool).toContain(line);
    expect(statSync(join(m.spool, 'thread-1/call_1.out')).mode & 0o777).toBe(0o600);
  });

  it.each(SAME_AS_BASH.filter((c) => c.command.includes('bash ')))(
    'under a zsh login user’s zsh (a nested bash reads BASH_ENV): $name',
    async ({ command, input }) => {
      if (!ZSH) return void console.warn('skipped: zsh is not installed');
      const m = machine();
      const alone = await run(m, command, { input, shell: ZSH });
      const captured = await run(m, command, { bashEnv: m.script, input, shell: ZSH });
      expect(captured).toEqual(alone);
    },
  );

  it('reads the user’s own BASH_ENV, and hands it on to nested shells as bash would', async () => {
    const m = machine();
    const own = join(m.dir, 'own-env.bash');
    writeFileSync(own, 'greet() { echo "hello from my BASH_ENV"; }\nexport -f greet\nOWN=1\n');
    const withOwn = machine({ userBashEnv: own });
    const command = `greet; echo "$OWN $BASH_ENV"; bash -c 'greet; echo "\${OWN-} $BASH_ENV"'`;
    const alone = await run(m, command, { bashEnv: own });
    expect(alone.stdout).toContain('hello from my BASH_ENV');
    expect(await run(withOwn, command, { bashEnv: withOwn.script })).toEqual(alone);
  });

  it('a bash run as another user with the environment kept reads nothing it cannot', async () => {
    if (process.getuid?.() !== 0) return void console.warn('skipped: needs root to run as nobody');
    const m = machine();
    const command = `runuser -u nobody -- ${BASH} -c 'echo "as $(id -un)"'`;
    const alone = await run(m, command);
    expect(alone.stdout).toBe('as nobody\n');
    expect(await run(m, command, { bashEnv: m.script })).toEqual(alone);
  });

  it('keeps at most its cap of a stream a background process goes on writing; Codex gets all of it', async () => {
    const m = machine({ spoolBytes: 64 * 1024 });
    const command = '(sleep 0.2; head -c 300000 /dev/zero | tr "\\0" x) & echo started';
    const alone = await run(m, command);
    const captured = await run(m, command, { bashEnv: m.script });
    expect(captured).toEqual(alone);
    expect(captured.stdout.length).toBe(300_000 + 'started\n'.length);
    await spoolOf(m, 32 * 1024);
  });

  it('writes through no link a command planted in the spool, and keeps no file that was there', async () => {
    const m = machine();
    const victim = join(m.dir, 'victim');
    writeFileSync(victim, 'keep\n');
    mkdirSync(join(m.spool, 'thread-1'));
    symlinkSync(victim, join(m.spool, 'thread-1', 'call_1.out'));
    const linked = machine();
    symlinkSync(m.dir, join(linked.spool, 'thread-1'));
    for (const target of [m, linked])
      expect((await run(target, 'echo hi', { bashEnv: target.script })).stdout).toBe('hi\n');
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    expect(readdirSync(m.dir).filter((f) => f.startsWith('call_'))).toEqual([]);
  });

  it('captures nothing outside what Codex itself started: another parent, its sandbox, bad ids', async () => {
    const m = machine();
    const plain = spawnSync(BASH, ['-c', 'echo hi'], {
      env: {
        PATH: process.env.PATH,
        BASH_ENV: m.script,
        CODEX_THREAD_ID: 'thread-1',
        CODEX_TOOL_CALL_ID: 'call_1',
      },
      encoding: 'utf8',
    });
    expect(plain.stdout).toBe('hi\n');
    for (const env of [
      { CODEX_SANDBOX: 'seccomp' },
      { CODEX_SANDBOX_NETWORK_DISABLED: '1' },
      { CODEX_TOOL_CALL_ID: '../x' },
    ] as Record<string, string>[])
      expect((await run(m, 'echo hi', { bashEnv: m.script, env })).stdout).toBe('hi\n');
    expect(spooled(m)).toEqual([]);
  });
});
