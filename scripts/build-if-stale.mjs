// `npm start` builds only when a source is newer than the build: a second start goes straight
// to the proxy instead of rebuilding (rollup, then tsc's declarations: seconds, more when loaded).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const path = join(dir, e.name);
    return Math.max(max, e.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);

let built = 0;
try {
  built = statSync(join(root, 'dist/cli.js')).mtimeMs;
} catch {}
const sources = Math.max(
  newest(join(root, 'src')),
  ...['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'].map(
    (f) => statSync(join(root, f)).mtimeMs,
  ),
);
if (sources > built) {
  process.stderr.write('building spillway (sources changed since the last build)...\n');
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
