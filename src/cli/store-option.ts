import { defaultBase } from '../store/default-base.js';
import { FileStore } from '../store/file-store.js';
import type { Store } from '../store/store.js';

/** The `--dir D` option every command that touches stored outputs takes. */
export const STORE_OPTIONS = { dir: { type: 'string' } } as const;

export const STORE_HELP = `  --dir D        file store base (default: $SPILLWAY_HOME/tool-results,
                 else ~/.spillway/tool-results)`;

/**
 * The store a command should use: the file store at `--dir`, else at the default base
 * (taken from the command's environment, so tests can point it elsewhere).
 *
 * @example
 * const store = storeFromOptions(values, io.env);
 */
export function storeFromOptions(values: { dir?: string }, env: NodeJS.ProcessEnv): Store {
  return new FileStore({ base: values.dir ?? defaultBase(env) });
}
