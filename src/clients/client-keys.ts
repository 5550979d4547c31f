/**
 * The clients spillway sets up, each a folder of its own (`src/clients/KEY/index.ts`): the one
 * list every other place derives from (the registry, the pattern setup finds its own hooks by).
 *
 * @example
 * CLIENT_KEYS.includes('codex'); // true
 */
export const CLIENT_KEYS = ['claude', 'codex', 'gemini', 'opencode'] as const;

export type ClientKey = (typeof CLIENT_KEYS)[number];
