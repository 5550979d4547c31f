#!/usr/bin/env node
// Fetches LogDx-CI's cases (eyuansu62/LogDx: real GitHub Actions failure logs, each with the
// signals a person verified; data CC-BY-4.0, code Apache-2.0) into .cache/logdx, for the LogDx
// measurement of collapse (src/test-support/logdx.ts). Never committed: the data is LogDx's.
// Each case keeps its path under cases/ (dev/x, v2/holdout/y): raw.log and ground_truth.json,
// and each split its published tail and grep scores (eval_tail.json, eval_grep.json), the check
// that our scorer matches theirs. Without the network, `--from DIR` (or $SPILLWAY_LOGDX_FROM)
// copies them from a LogDx checkout or a bare clone of it; files a clone lacks are skipped.
//
//   npm run logdx                      # from GitHub
//   npm run logdx -- --from ~/LogDx    # from a local copy
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = 'eyuansu62/LogDx';
const RAW = `https://raw.githubusercontent.com/${REPO}/main`;
const TREE = `https://api.github.com/repos/${REPO}/git/trees/main?recursive=1`;
const WANTED = /^(?:cases\/.+\/(?:raw\.log|ground_truth\.json)|results\/.+\/eval_(?:tail|grep)\.json)$/;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    "usage: npm run logdx [-- --from DIR]\n\nFetches LogDx-CI's case logs and ground truth into .cache/logdx.\n--from DIR   copy from a LogDx checkout or bare clone instead of the network\n             (also $SPILLWAY_LOGDX_FROM)",
  );
  process.exit(0);
}
const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? args[fromAt + 1] : process.env.SPILLWAY_LOGDX_FROM;
if (fromAt >= 0 && !from) {
  console.error('logdx: --from needs a directory (a LogDx checkout or a bare clone)');
  process.exit(2);
}
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = process.env.SPILLWAY_LOGDX_DIR ?? join(root, '.cache/logdx');
const gitDir = from && (existsSync(join(from, '.git')) ? join(from, '.git') : from);
const checkout = from && existsSync(join(from, 'cases'));

/** Every file under a directory, as paths relative to `base`. */
function walk(base, at = base) {
  return readdirSync(at).flatMap((name) => {
    const path = join(at, name);
    return statSync(path).isDirectory() ? walk(base, path) : [relative(base, path)];
  });
}

/** The repository's paths that the measurement reads. */
async function paths() {
  if (checkout) return walk(from).filter((p) => WANTED.test(p));
  if (from) {
    const names = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', 'HEAD', '--name-only'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return names.split('\n').filter((p) => WANTED.test(p));
  }
  const response = await fetch(TREE, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`${TREE} answered ${response.status}`);
  const { tree } = await response.json();
  return tree
    .filter((entry) => entry.type === 'blob')
    .map((entry) => entry.path)
    .filter((p) => WANTED.test(p));
}

/** One file of the repository, from the local copy or the network. */
async function read(path) {
  if (checkout) return readFileSync(join(from, path), 'utf8');
  if (from)
    return execFileSync('git', ['--git-dir', gitDir, 'show', `HEAD:${path}`], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  const response = await fetch(`${RAW}/${path}`, { signal: AbortSignal.timeout(120_000) });
  if (!response.ok) throw new Error(`${RAW}/${path} answered ${response.status}`);
  return await response.text();
}

const wanted = await paths().catch((error) => {
  const why =
    error instanceof Error
      ? `${error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ''}`
      : error;
  console.error(
    `logdx: could not list LogDx-CI's files: ${why}. Without the network, copy them from a checkout or bare clone: npm run logdx -- --from DIR`,
  );
  process.exit(1);
});
let got = 0;
let missed = 0;
for (const path of wanted) {
  const target = join(dir, path.replace(/^cases\//, '').replace(/^results\//, 'published/'));
  if (existsSync(target)) {
    got++;
    continue;
  }
  try {
    const text = await read(path);
    mkdirSync(dirname(target), { recursive: true });
    // Written whole or not at all: a half-fetched log would be measured as it is.
    writeFileSync(`${target}.part`, text, { mode: 0o644 });
    renameSync(`${target}.part`, target);
    got++;
  } catch (error) {
    missed++;
    console.error(
      `logdx: ${path} not fetched: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
    );
  }
}
console.log(`logdx: ${got} files in ${dir}${missed ? `, ${missed} not fetched` : ''}`);
process.exit(got > 0 ? 0 : 1);
