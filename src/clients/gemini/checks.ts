import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_UPSTREAMS, readKeptUpstreams } from '../../store/index.js';
import type { Check } from '../client-checks.js';
import { dotenvValue } from '../config-text.js';
import type { SetupOptions } from '../setup-plan.js';

/**
 * The `.env` Gemini CLI reads in `cwd`: the first `.gemini/.env` or `.env` from there upward,
 * then `~/.gemini/.env`, then `~/.env` (its findEnvFile, in a trusted folder).
 */
function geminiEnvFile(cwd: string, home: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const file of [join(dir, '.gemini/.env'), join(dir, '.env')]) if (existsSync(file)) return file;
    if (dirname(dir) === dir) break;
  }
  return [join(home, '.gemini/.env'), join(home, '.env')].find((f) => existsSync(f));
}

/**
 * Whether Gemini CLI, started in `cwd`, sends its requests to the proxy: a project's `.env`
 * (or the shell's own GOOGLE_GEMINI_BASE_URL) takes the place of `~/.gemini/.env`.
 *
 * @example
 * checkGeminiRouting(options, 'http://127.0.0.1:4747', process.cwd()).ok;
 */
export function checkGeminiRouting(options: SetupOptions, proxy: string, cwd: string): Check {
  const set = options.env.GOOGLE_GEMINI_BASE_URL?.trim() || undefined;
  const upstream = readKeptUpstreams(options.env).gemini ?? DEFAULT_UPSTREAMS.gemini;
  if (set !== undefined && set !== proxy)
    return {
      ok: false,
      what: `GOOGLE_GEMINI_BASE_URL is set to ${set} in your shell: Gemini CLI sends its requests there, not through the proxy (which forwards Gemini requests to ${upstream})`,
      fix:
        set === upstream
          ? 'remove the export from your shell profile: the proxy already forwards to it'
          : `to keep ${set}: run "spillway setup gemini --undo", then "spillway setup gemini --proxy ${proxy}" in this shell (it keeps the endpoint as the proxy's upstream), then remove the export`,
    };
  const file = geminiEnvFile(cwd, options.home);
  if (file === undefined || file === join(options.home, '.gemini/.env'))
    return {
      ok: true,
      what: `Gemini CLI started here reads ${join(options.home, '.gemini/.env')}: its requests go through the proxy`,
    };
  const value = dotenvValue(readFileSync(file, 'utf8'), 'GOOGLE_GEMINI_BASE_URL');
  if (value === proxy)
    return {
      ok: true,
      what: `Gemini CLI started here reads ${file}, which sends its requests through the proxy`,
    };
  return {
    ok: false,
    what: `Gemini CLI started here reads ${file} instead of ~/.gemini/.env: its requests bypass the proxy${value ? ` and go to ${value}` : ''}`,
    // Pointing the file at the proxy would send the key to the proxy's upstream, not the file's.
    fix:
      value && value !== upstream
        ? `the proxy forwards Gemini requests to ${upstream}, not ${value}: leave ${file} as it is, or use spillway in this folder only if ${upstream} is where its key may go (then set GOOGLE_GEMINI_BASE_URL=${proxy} there)`
        : `add GOOGLE_GEMINI_BASE_URL=${proxy} to ${file}`,
  };
}
