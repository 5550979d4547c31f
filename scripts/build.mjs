// `npm run build`: the package's entry points (package.json's exports and bin) bundled by
// rollup (TypeScript stripped by esbuild), their shared code split into chunks, then tsc's
// declarations beside them. Rollup shakes what a chunk does not use before it splits, so an
// index.ts costs a start nothing: a start path loads only the code it uses, however the
// sources import it (DEVELOPERS.md, Start time). esbuild's own splitting keeps every module a
// used index re-exports (evanw/esbuild#3704), which doubled the CPU of `spillway --version`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { transform } from 'esbuild';
import { rollup } from 'rollup';

const root = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `./dist/x/y.js` -> ['x/y', '<root>/src/x/y.ts'] */
const entry = (distPath) => {
  const name = distPath.replace(/^\.?\/?dist\//, '').replace(/\.js$/, '');
  return [name, join(root, 'src', `${name}.ts`)];
};
const targets = [
  ...Object.values(pkg.bin),
  ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'object' ? [e.import] : [])),
];

/** The sources import `./x.js` for `./x.ts` (NodeNext); esbuild strips the types of each. */
const typescript = {
  name: 'typescript',
  resolveId(source, importer) {
    if (!importer || !source.startsWith('.')) return null;
    const ts = resolve(dirname(importer), source.replace(/\.js$/, '.ts'));
    return existsSync(ts) ? ts : null;
  },
  async transform(code, id) {
    if (!id.endsWith('.ts')) return null;
    const out = await transform(code, {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: true,
      sourcefile: id,
    });
    return { code: out.code, map: out.map };
  },
};

rmSync(join(root, 'dist'), { recursive: true, force: true });
const bundle = await rollup({
  input: Object.fromEntries(targets.map(entry)),
  plugins: [typescript],
  // Packages and node: builtins stay imports: users' installs resolve them, and peers stay optional.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
  // No module of the sources runs for its effect alone: one whose exports go unused is dropped.
  treeshake: { moduleSideEffects: false },
  onwarn(warning, warn) {
    if (warning.code === 'CIRCULAR_DEPENDENCY') throw new Error(warning.message);
    warn(warning);
  },
});
await bundle.write({
  dir: join(root, 'dist'),
  format: 'es',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
});
await bundle.close();
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(tsc.status ?? 1);
