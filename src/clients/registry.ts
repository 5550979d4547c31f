import { SpillwayError } from '../errors.js';
import { CLIENT_KEYS, type ClientKey } from './client-keys.js';
import type { ClientSpec } from './client-spec.js';

export { CLIENT_KEYS, type ClientKey } from './client-keys.js';

const LOADERS: Record<ClientKey, () => Promise<{ spec: ClientSpec }>> = {
  claude: () => import('./claude/index.js'),
  codex: () => import('./codex/index.js'),
  gemini: () => import('./gemini/index.js'),
  opencode: () => import('./opencode/index.js'),
};

/** Whether `key` names a client spillway knows. */
export function isClientKey(key: unknown): key is ClientKey {
  return typeof key === 'string' && (CLIENT_KEYS as readonly string[]).includes(key);
}

/**
 * One client's spec, loaded on demand (a hook loads only its own client); a key spillway does
 * not know is a usage error that lists the ones it does.
 *
 * @example
 * const spec = await loadClient('gemini'); // spec.name === 'Gemini CLI'
 */
export async function loadClient(key: string): Promise<ClientSpec> {
  if (!isClientKey(key))
    throw new SpillwayError(
      'SPILLWAY_USAGE',
      `unknown client "${key}"; spillway knows: ${CLIENT_KEYS.join(', ')}`,
    );
  return (await LOADERS[key]()).spec;
}

/**
 * Every client's spec, in `CLIENT_KEYS` order.
 *
 * @example
 * for (const spec of await loadClients()) console.log(spec.key, spec.limit);
 */
export function loadClients(): Promise<ClientSpec[]> {
  return Promise.all(CLIENT_KEYS.map(loadClient));
}
