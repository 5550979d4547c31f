import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a program printed, its standard output then its standard error, run without colour.
 *
 * @example
 * run('python3', ['service.py'], dir);
 */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/**
 * Runs `fn` in a new temporary directory, removed afterwards whatever happens.
 *
 * @example
 * const out = inTemp((dir) => run('make', ['-k'], dir));
 */
export function inTemp<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'sw-programs-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `n` test cases, the one at `depth` of the way through failing: `failing(i)` or `passing(i)` each.
 *
 * @example
 * casesFailingAt(4, 0.5, (i) => `fail ${i}`, (i) => `pass ${i}`); // ['pass 0', 'pass 1', 'fail 2', 'pass 3']
 */
export function casesFailingAt(
  n: number,
  depth: number,
  failing: (i: number) => string,
  passing: (i: number) => string,
): string[] {
  const at = Math.floor(n * depth);
  return Array.from({ length: n }, (_, i) => (i === at ? failing(i) : passing(i)));
}
