#!/usr/bin/env node
// Fetches loghub's 2,000-line samples and their structured CSVs (logpai/loghub) into
// .cache/loghub, for the loghub measurement of collapse (src/test-support/loghub.ts). Never
// committed: the data is loghub's. Without the network, `--from DIR` (or $SPILLWAY_LOGHUB_FROM)
// copies them from a loghub checkout or a bare clone of it.
//
//   npm run loghub                      # from raw.githubusercontent.com
//   npm run loghub -- --from ~/loghub   # from a local copy
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SYSTEMS = [
  'Android',
  'Apache',
  'BGL',
  'HDFS',
  'HPC',
  'Hadoop',
  'HealthApp',
  'Linux',
  'Mac',
  'OpenSSH',
  'OpenStack',
  'Proxifier',
  'Spark',
  'Thunderbird',
  'Windows',
  'Zookeeper',
];
const RAW = 'https://raw.githubusercontent.com/logpai/loghub/master';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    "usage: npm run loghub [-- --from DIR]\n\nFetches loghub's *_2k.log samples and their structured CSVs into .cache/loghub.\n--from DIR   copy from a loghub checkout or bare clone instead of the network\n             (also $SPILLWAY_LOGHUB_FROM)",
  );
  process.exit(0);
}
const fromAt = args.indexOf('--from');
const from = fromAt >= 0 ? args[fromAt + 1] : process.env.SPILLWAY_LOGHUB_FROM;
if (fromAt >= 0 && !from) {
  console.error('loghub: --from needs a directory (a loghub checkout or a bare clone)');
  process.exit(2);
}
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = process.env.SPILLWAY_LOGHUB_DIR ?? join(root, '.cache/loghub');
mkdirSync(dir, { recursive: true });

/** One file of the loghub repository, from the local copy or the network. */
async function read(path) {
  if (from) {
    if (existsSync(join(from, path))) return readFileSync(join(from, path), 'utf8');
    return execFileSync(
      'git',
      ['--git-dir', existsSync(join(from, '.git')) ? join(from, '.git') : from, 'show', `HEAD:${path}`],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  }
  const response = await fetch(`${RAW}/${path}`, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`${RAW}/${path} answered ${response.status}`);
  return await response.text();
}

let got = 0;
for (const system of SYSTEMS) {
  const names = [`${system}_2k.log`, `${system}_2k.log_structured.csv`];
  if (names.every((name) => existsSync(join(dir, name)))) {
    got++;
    continue;
  }
  try {
    for (const name of names) {
      const text = await read(`${system}/${name}`);
      // Written whole or not at all: a half-fetched sample would be measured as it is.
      writeFileSync(join(dir, `${name}.part`), text, { mode: 0o644 });
      renameSync(join(dir, `${name}.part`), join(dir, name));
    }
    got++;
    console.log(`loghub: ${system} ready`);
  } catch (error) {
    console.error(
      `loghub: ${system} not fetched: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
    );
  }
}
console.log(`loghub: ${got} of ${SYSTEMS.length} samples in ${dir}`);
process.exit(got === SYSTEMS.length ? 0 : 1);
