import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BUILT = existsSync(join(ROOT, 'dist/index.d.ts'));
if (!BUILT) console.warn('skipping the published types test: dist/ is not built (npm run build)');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
};
// The integrations' types name their framework, which their users have; every other subpath
// must compile with none of the optional peers (redis, the MCP SDK, the frameworks) installed.
const SUBPATHS = Object.keys(PKG.exports).filter(
  (p) =>
    p !== './package.json' && !['./ai-sdk', './mcp-client', './langchain', './openai-agents'].includes(p),
);

const dir = mkdtempSync(join(tmpdir(), 'spillway-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the published types', () => {
  it.skipIf(!BUILT)(
    'compile in a strict project that checks libraries and has no optional peer',
    async () => {
      // The package as a user's install holds it: its files beside its dependencies, and
      // nothing of this checkout's node_modules (where the peers are dev dependencies).
      const pkg = join(dir, 'node_modules/spillway');
      mkdirSync(pkg, { recursive: true });
      cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
      for (const dep of Object.keys(PKG.dependencies))
        symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep));
      const names = SUBPATHS.map((p) => `spillway${p.slice(1)}`);
      writeFileSync(
        join(dir, 'use.mts'),
        names.map((n, i) => `import * as m${i} from '${n}';\nvoid m${i};\n`).join(''),
      );
      const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
      const args = ['--noEmit', '--strict', '--skipLibCheck', 'false'];
      args.push('--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023');
      args.push('--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), 'use.mts');
      const run = await promisify(execFile)(process.execPath, [tsc, ...args], { cwd: dir }).catch(
        (err: { stdout: string }) => ({ stdout: err.stdout }),
      );
      expect(run.stdout).toBe('');
      expect(names.length).toBeGreaterThan(10);
    },
    120_000,
  );
});
