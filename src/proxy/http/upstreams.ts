import type { IncomingHttpHeaders } from 'node:http';
import { SpillwayError } from '../../errors.js';
import { type ApiName, DEFAULT_UPSTREAMS, PROVIDERS, type UpstreamKey } from '../../providers/index.js';
import { boundedMemo } from '../../text/index.js';

export { DEFAULT_UPSTREAMS };

/** Where each provider's requests go, by the key users name it by (`--openai-upstream`). */
export type Upstreams = Readonly<Record<UpstreamKey, string>>;

// Hop-by-hop headers (RFC 9110 7.6.1) are never forwarded; on requests, neither are the ones
// the proxy sets itself.
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
];
const DROP_REQUEST = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect']);
const DROP_RESPONSE = new Set(HOP_BY_HOP);

/**
 * The upstreams with defaults filled in; a value that is not a URL is a clear error.
 *
 * @example
 * resolveUpstreams({ openai: 'http://127.0.0.1:8080' }).anthropic; // 'https://api.anthropic.com'
 */
export function resolveUpstreams(given: Partial<Upstreams> = {}): Upstreams {
  const upstreams = { ...DEFAULT_UPSTREAMS, ...given };
  for (const [name, url] of Object.entries(upstreams)) {
    if (!URL.canParse(url))
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `the ${name} upstream "${url}" is not a URL; give one like ${DEFAULT_UPSTREAMS[name as UpstreamKey]}`,
      );
  }
  return upstreams;
}

/**
 * Where a request goes: the upstream of the API the client speaks (the body's format, and the
 * path and headers each provider's spec names); another `/v1/...` path goes to the fallback
 * provider's (OpenAI's). When none tells, the one upstream the user configured (a gateway setup
 * kept, a flag), else the fallback's for a request with no credential. A request carrying a credential whose path and headers name two
 * APIs, or none, is refused: one provider's key never goes to another's host.
 *
 * @example
 * upstreamFor(upstreams, '/v1/models', req.headers, undefined);
 */
export function upstreamFor(
  upstreams: Upstreams,
  path: string,
  headers: IncomingHttpHeaders,
  api: ApiName | undefined,
): string {
  const named = PROVIDERS.named(path, headers);
  const format = api && PROVIDERS.of(api).upstream.key;
  if (format) named.add(format);
  const credential = PROVIDERS.carriesCredential(path, headers);
  const fallback = PROVIDERS.fallback.upstream.key;
  const [first] = named;
  if (first !== undefined && (named.size === 1 || !credential)) return upstreams[format || first];
  if (named.size > 1)
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `${path.split('?')[0]?.slice(0, 80)} with these headers names more than one model API (${[...named].join(', ')}) and carries a credential: spillway sends it nowhere rather than send one provider's key to another's host`,
    );
  if (path.startsWith('/v1/')) return upstreams[fallback];
  const configured = PROVIDERS.upstreamKeys.filter((name) => upstreams[name] !== DEFAULT_UPSTREAMS[name]);
  if (configured.length === 1) return upstreams[configured[0] as UpstreamKey];
  if (!credential) return upstreams[fallback];
  throw new SpillwayError(
    'SPILLWAY_BAD_INPUT',
    `spillway cannot tell which model API ${path.split('?')[0]?.slice(0, 80)} is for (no model API's path or header), and the request carries a credential: it is sent nowhere. Send it to the provider's own path, or with its headers (anthropic-version, x-goog-api-key)`,
  );
}

/**
 * True for a request target in origin form (`/path?query`), the only form a proxy in front of
 * an API should accept. Absolute (`http://host/...`), authority and asterisk forms, and targets
 * like `*@host/...` or `//host/...`, could otherwise steer the request to another host.
 *
 * @example
 * isOriginForm('/v1/messages?beta=true'); // true
 * isOriginForm('*@169.254.169.254/latest'); // false
 */
export function isOriginForm(target: string): boolean {
  return target.startsWith('/') && !target.startsWith('//') && !/[\s\\]/.test(target);
}

/**
 * The upstream URL of a request, built structurally: the upstream's origin is fixed, its base
 * path is kept, and only the request's path and query are appended, so no request target can
 * change the host.
 *
 * @example
 * upstreamUrl('https://api.openai.com', '/v1/models?limit=2').href; // 'https://api.openai.com/v1/models?limit=2'
 */
export function upstreamUrl(base: string, target: string): URL {
  if (!isOriginForm(target))
    throw new SpillwayError('SPILLWAY_BAD_INPUT', `request target "${target.slice(0, 80)}" is not a path`);
  // Nearly every request goes to one of a few paths: one parse instead of two and a rebuild.
  // Not with a query, which may carry a key (Gemini's ?key=) that should not linger here, nor a
  // long path (the memory stays small whatever clients send).
  const remembered = !target.includes('?') && target.length <= 200;
  return new URL(remembered ? joinedHref(`${base}\0${target}`) : joinHref(base, target));
}

function joinHref(base: string, target: string): string {
  const url = new URL(base);
  const parsed = new URL(target, 'http://spillway.invalid');
  url.pathname = `${url.pathname.replace(/\/$/, '')}${parsed.pathname}`;
  url.search = parsed.search;
  url.hash = '';
  return url.href;
}

// The configured base holds no NUL: the key splits at its first one.
const joinedHref = boundedMemo(
  (key) => joinHref(key.slice(0, key.indexOf('\0')), key.slice(key.indexOf('\0') + 1)),
  256,
);

/**
 * The headers a request is forwarded with: the client's, less hop-by-hop and spillway's own.
 *
 * @example
 * upstreamHeaders(req.headers, body.length);
 */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  bodyLength: number | undefined,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROP_REQUEST.has(name) || name.startsWith('x-spillway-')) continue;
    out[name] = value;
  }
  if (bodyLength !== undefined) out['content-length'] = String(bodyLength);
  return out;
}

/**
 * The headers an upstream answer is passed back with: all but hop-by-hop.
 *
 * @example
 * res.writeHead(upstream.statusCode, responseHeaders(upstream.headers));
 */
export function responseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !DROP_RESPONSE.has(name)) out[name] = value;
  }
  return out;
}
