import { PassThrough } from 'node:stream';
import { runCli } from '../cli/main.js';

/** Runs the CLI in-process with the given stdin and environment; collects exit code and output. */
export async function cli(
  argv: string[],
  options: { stdin?: string | Buffer; tty?: boolean; env?: NodeJS.ProcessEnv } = {},
) {
  const input = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c) => out.push(c));
  stderr.on('data', (c) => err.push(c));
  input.end(options.stdin ?? '');
  const code = await runCli(argv, {
    stdin: input,
    stdout,
    stderr,
    stdinIsTTY: options.tty ?? false,
    env: options.env ?? {},
  });
  const raw = Buffer.concat(out);
  return { code, raw, stdout: raw.toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
