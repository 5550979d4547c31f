import { join } from 'node:path';
import type { SetupOptions } from '../setup-plan.js';

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexDir(options: Pick<SetupOptions, 'home' | 'env'>): string {
  return options.env.CODEX_HOME?.trim() || join(options.home, '.codex');
}
