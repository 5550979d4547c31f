import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The agent clients the end-to-end tests drive, each pinned: the oldest Claude Code we promise
 * to work with and the newest 2.1.x, Codex and Gemini CLI as users install them. They are not
 * dev dependencies (about 1 GB with their native binaries); `npm run clients` installs them
 * into a cache folder, and CI does that in `.ci/run`.
 */
export const PINNED_CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  'claude-2.1.197': { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
} as const;

export type ClientKey = keyof typeof PINNED_CLIENTS;

/** Where pinned clients are installed: `$SPILLWAY_CLIENTS_DIR`, else `.cache/clients` here. */
export function clientsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SPILLWAY_CLIENTS_DIR ?? join(ROOT, '.cache/clients');
}

const folderOf = (key: ClientKey, env?: NodeJS.ProcessEnv) => {
  const c = PINNED_CLIENTS[key];
  return join(clientsDir(env), `${c.pkg.replace('/', '+')}@${c.version}`);
};

/**
 * The pinned client's executable, or why it cannot run here (the test then skips with that
 * message).
 *
 * @example
 * const claude = clientBinary('claude'); // { path: '/repo/.cache/clients/@anthropic-ai+claude-code@2.1.332/node_modules/.bin/claude' }
 */
export function clientBinary(key: ClientKey): { path: string; version: string } | { missing: string } {
  const c = PINNED_CLIENTS[key];
  const path = join(folderOf(key), 'node_modules/.bin', c.bin);
  if (!existsSync(path))
    return {
      missing: `${c.pkg}@${c.version} is not installed; run "npm run clients" to install the pinned clients`,
    };
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status !== 0)
    return {
      missing: `${c.bin} ${c.version} --version failed here: ${(probe.stderr || String(probe.error)).trim().slice(0, 200)}`,
    };
  return { path, version: c.version };
}

/**
 * Installs one pinned client into its cache folder (in a temporary folder first, then renamed,
 * so an interrupted install leaves nothing half-made).
 */
export function installClient(key: ClientKey): void {
  const c = PINNED_CLIENTS[key];
  const folder = folderOf(key);
  if (existsSync(join(folder, 'node_modules/.bin', c.bin))) return;
  const staging = `${folder}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // Claude Code's install script picks its native binary; npm runs it only when allowed.
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify({ private: true, allowScripts: { [c.pkg]: true } }, null, 2)}\n`,
  );
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', `${c.pkg}@${c.version}`],
    { cwd: staging, stdio: 'inherit' },
  );
  if (r.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install ${c.pkg}@${c.version} failed (exit ${r.status})`);
  }
  rmSync(folder, { recursive: true, force: true });
  renameSync(staging, folder);
}

// `npm run clients [KEY...]`: installs the pinned clients (all by default) and checks each runs.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const keys = (process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PINNED_CLIENTS)) as ClientKey[];
  let failed = 0;
  for (const key of keys) {
    if (!Object.hasOwn(PINNED_CLIENTS, key)) {
      console.error(`unknown client "${key}"; pinned: ${Object.keys(PINNED_CLIENTS).join(', ')}`);
      process.exit(2);
    }
    const c = PINNED_CLIENTS[key];
    const started = Date.now();
    process.stderr.write(`installing ${c.pkg}@${c.version} into ${clientsDir()} ...\n`);
    try {
      installClient(key);
      const ok = clientBinary(key);
      if ('missing' in ok) throw new Error(ok.missing);
      process.stderr.write(
        `  ${c.bin} ${c.version} ready (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    } catch (err) {
      failed++;
      process.stderr.write(`  failed: ${(err as Error).message}\n`);
    }
  }
  process.exit(failed ? 1 : 0);
}
