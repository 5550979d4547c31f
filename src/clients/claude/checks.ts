import { DEFAULT_UPSTREAMS, readKeptUpstreams } from '../../store/index.js';
import type { Check } from '../client-checks.js';
import type { SetupOptions } from '../setup-plan.js';

const bare = (url: string) => url.replace(/\/+$/, '');

/**
 * Where Claude Code's requests end up: settings.json points it at the proxy (over any variable
 * of the shell), and the proxy forwards to the gateway setup kept, else Anthropic's API. A
 * gateway exported in this shell that setup never saw (it ran in another shell) would lose
 * them, with the user's key.
 *
 * @example
 * checkClaudeEndpoint(options, 'http://127.0.0.1:4747').ok;
 */
export function checkClaudeEndpoint(options: SetupOptions, proxy: string): Check {
  const set = options.env.ANTHROPIC_BASE_URL?.trim() || undefined;
  const upstream = readKeptUpstreams(options.env).anthropic ?? DEFAULT_UPSTREAMS.anthropic;
  if (set === undefined || bare(set) === bare(proxy) || bare(set) === bare(upstream))
    return { ok: true, what: `Claude Code's requests go through the proxy to ${upstream}` };
  return {
    ok: false,
    what: `ANTHROPIC_BASE_URL is exported in this shell as ${set}, but Claude Code reads settings.json's (the proxy), which forwards its requests, with your key, to ${upstream}, not ${set}`,
    fix: `to keep ${set}: spillway setup claude --undo, then spillway setup claude --proxy ${proxy} in this shell (it keeps the endpoint as the proxy's upstream)`,
  };
}
