import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';

/**
 * The names a request may give in its Host header: the proxy's own addresses. A page in a
 * browser can make a request to the proxy under a name of its own (DNS rebinding: evil.example
 * resolving to 127.0.0.1); only the user's clients use these.
 *
 * @example
 * allowedHosts('127.0.0.1', ['devbox']); // Set { 'localhost', '127.0.0.1', '::1', 'devbox' }
 */
export function allowedHosts(listen: string, extra: readonly string[] = []): ReadonlySet<string> {
  const names = new Set(['localhost', '127.0.0.1', '::1', bare(listen), ...extra.map(bare)]);
  // Bound to every address (with a token, for other machines): each of this machine's own.
  if (listen === '0.0.0.0' || listen === '::') {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces()))
      for (const address of list ?? []) names.add(address.address.toLowerCase());
  }
  return names;
}

/** A host name without brackets, a trailing dot or case: `[::1]` -> `::1`, `LocalHost.` -> `localhost`. */
function bare(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The host part of a Host header (`[::1]:4747` -> `::1`, `localhost:4747` -> `localhost`). */
function hostOf(header: string): string {
  const h = header.trim();
  const v6 = /^\[([^\]]+)\](?::\d*)?$/.exec(h);
  if (v6) return bare(v6[1] as string);
  return bare(h.replace(/:\d*$/, ''));
}

/** The content types a model request or an MCP message is sent with. */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * Why a request does not come from the user's own clients, or undefined when it may: a Host that
 * is not one of the proxy's names (DNS rebinding), a browser's request from another page (an
 * `Origin` other than the proxy's own, or `Sec-Fetch-Site` other than `same-origin` or `none`),
 * or a body (`json`: a model route, /mcp) that is not JSON (what a page can post without asking
 * first). Checked before anything is read, forwarded or stashed.
 *
 * @example
 * siteProblem(req, allowedHosts('127.0.0.1'), { json: true }); // 'the Host "evil.example:4747" is not ...'
 */
export function siteProblem(
  req: IncomingMessage,
  hosts: ReadonlySet<string>,
  options: { json: boolean },
): string | undefined {
  const host = req.headers.host;
  if (host !== undefined && !hosts.has(hostOf(host)))
    return `the Host "${host}" is not an address of this proxy (${[...hosts].slice(0, 4).join(', ')}); a page in a browser may not reach it under a name of its own. To reach it by another name, start it with --allow-host NAME`;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `a request from another web page (Sec-Fetch-Site: ${site}) is refused: only your own clients, and the dashboard opened from its own address, reach the proxy`;
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host, hosts))
    return `a request from the web page at ${origin} is refused: only your own clients, and the dashboard opened from its own address, reach the proxy`;
  const type = req.headers['content-type'];
  if (options.json && req.method === 'POST' && !JSON_TYPE.test(type ?? ''))
    return `a ${req.method} with Content-Type "${type ?? '(none)'}" is refused: model requests and MCP messages are JSON (Content-Type: application/json)`;
  return undefined;
}

/** Whether an Origin header names the proxy itself, as the Host header does. */
function sameOrigin(origin: string, host: string | undefined, hosts: ReadonlySet<string>): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (a sandboxed frame, a file) and anything unparsable
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return (
    host !== undefined &&
    url.host.toLowerCase() === host.trim().toLowerCase() &&
    hosts.has(bare(url.hostname))
  );
}
