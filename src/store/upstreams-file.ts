import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpillwayError } from '../errors.js';
import { spillwayHome } from '../home/index.js';
import { DEFAULT_UPSTREAMS, PROVIDERS, type UpstreamKey } from '../providers/index.js';

export { DEFAULT_UPSTREAMS };

/** The upstreams a proxy forwards to, by the key upstreams.json names them by (one per provider). */
export type UpstreamApi = UpstreamKey;
export type KeptUpstreams = Partial<Record<UpstreamApi, string>>;

/**
 * Where `spillway setup` keeps the endpoints a client was pointed at before it pointed the client
 * at the proxy (a company gateway, a provider of the user's): `spillway proxy` forwards there.
 */
export function upstreamsFile(env: NodeJS.ProcessEnv): string {
  return join(spillwayHome(env), 'upstreams.json');
}

/**
 * The kept endpoints in a text of the file; a value that is not an http(s) URL is a clear error.
 *
 * @example
 * parseKeptUpstreams('{"anthropic":"https://gateway.corp.test"}', 'upstreams.json'); // { anthropic: 'https://gateway.corp.test' }
 */
export function parseKeptUpstreams(text: string, file: string): KeptUpstreams {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SpillwayError('SPILLWAY_BAD_CONFIG', `${file} is not JSON; fix it or remove it`);
  }
  const kept: KeptUpstreams = {};
  for (const api of PROVIDERS.upstreamKeys) {
    const url = (value as Record<string, unknown> | null)?.[api];
    if (url === undefined) continue;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url) || !URL.canParse(url))
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `${file}: "${api}" must be an http(s) URL, got ${JSON.stringify(url)}; fix it or remove the key`,
      );
    kept[api] = url;
  }
  return kept;
}

/**
 * The kept endpoints of this SPILLWAY_HOME (none when the file is absent).
 *
 * @example
 * readKeptUpstreams(process.env).anthropic; // 'https://gateway.corp.test'
 */
export function readKeptUpstreams(env: NodeJS.ProcessEnv): KeptUpstreams {
  const file = upstreamsFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  return parseKeptUpstreams(text, file);
}
