// `npm run build`: the package's entry points (package.json's exports and bin) bundled by
// esbuild, their shared code split into chunks, then tsc's declarations beside them.
// Bundled, an index.ts costs nothing at run time: a start path loads only the code it uses,
// however the sources import it (DEVELOPERS.md, Start time).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `./dist/x/y.js` -> { in: 'src/x/y.ts', out: 'x/y' } */
const entry = (distPath) => {
  const out = distPath.replace(/^\.?\/?dist\//, '').replace(/\.js$/, '');
  return { in: join(root, 'src', `${out}.ts`), out };
};
const targets = [
  ...Object.values(pkg.bin),
  ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'object' ? [e.import] : [])),
];
const entryPoints = [...new Map(targets.map((t) => [t, entry(t)])).values()];

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies stay imports: users' installs resolve them, and peers stay optional.
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(tsc.status ?? 1);
