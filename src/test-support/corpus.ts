import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The shared replay corpus, read in place (never copied into the repo): beside the checkout, or
 * where SPILLWAY_CORPUS_DIR names it (a git worktree is one level deeper than its main checkout).
 */
export const CORPUS_DIR =
  process.env.SPILLWAY_CORPUS_DIR || resolve(import.meta.dirname, '../../../shared/corpus');

export const corpusAvailable = existsSync(CORPUS_DIR);

export const CORPUS_MISSING = `replay corpus not found at ${CORPUS_DIR}; these tests need ../shared/corpus beside the checkout`;

/** Every transcript file of the corpus (README excluded), sorted for a stable order. */
export function corpusFiles(): string[] {
  if (!corpusAvailable) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name !== 'README.md') out.push(path);
    }
  };
  walk(CORPUS_DIR);
  return out;
}
