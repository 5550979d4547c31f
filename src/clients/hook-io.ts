import type { Store } from '../store/index.js';

/** What a client hook handler gets besides the client's JSON. */
export interface HookContext {
  env: NodeJS.ProcessEnv;
  /** The store the original is stashed in (the same default as the proxy and `spillway mcp`). */
  store: () => Promise<Store>;
  /** How to start this spillway from the client's shell. */
  spillway: { command: string; args: string[] };
}

/** A client's hook input, read loosely: clients add fields between versions. */
export type HookInput = Record<string, unknown>;

/** A field of a JSON object, if it is an object. */
export function objectField(value: unknown, key: string): Record<string, unknown> | undefined {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return field && typeof field === 'object' && !Array.isArray(field)
    ? (field as Record<string, unknown>)
    : undefined;
}

/** A string field of a JSON object, if it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  const field = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}
