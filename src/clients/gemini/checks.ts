import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Check } from '../client-checks.js';
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
  const set = options.env.GOOGLE_GEMINI_BASE_URL;
  if (set !== undefined && set !== proxy)
    return {
      ok: false,
      what: `GOOGLE_GEMINI_BASE_URL is set to ${set} in your shell: Gemini CLI sends its requests there, not through the proxy`,
      fix: `unset GOOGLE_GEMINI_BASE_URL, or set it to ${proxy}`,
    };
  const file = geminiEnvFile(cwd, options.home);
  if (file === undefined || file === join(options.home, '.gemini/.env'))
    return {
      ok: true,
      what: `Gemini CLI started here reads ${join(options.home, '.gemini/.env')}: its requests go through the proxy`,
    };
  const text = readFileSync(file, 'utf8');
  const line = /^\s*(?:export\s+)?GOOGLE_GEMINI_BASE_URL\s*=\s*["']?([^"'\s#]*)/m.exec(text);
  return line?.[1] === proxy
    ? { ok: true, what: `Gemini CLI started here reads ${file}, which sends its requests through the proxy` }
    : {
        ok: false,
        what: `Gemini CLI started here reads ${file} instead of ~/.gemini/.env: its requests bypass the proxy`,
        fix: `add GOOGLE_GEMINI_BASE_URL=${proxy} to ${file}`,
      };
}
