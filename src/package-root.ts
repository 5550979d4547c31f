import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | undefined;

/**
 * This package's folder: the nearest one above this module that holds a package.json. Found by
 * walking up, not by a fixed `../..`, because the build bundles modules into files at other
 * depths than their sources (`dist/cli.js`, `dist/chunks/…`), and tests run the sources.
 *
 * @example
 * join(packageRoot(), 'dist/cli.js'); // '/usr/lib/node_modules/spillway/dist/cli.js'
 */
export function packageRoot(): string {
  if (cached) return cached;
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      cached = dir;
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
  }
}
