import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadClients } from '../clients/registry.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The agent clients the end-to-end tests drive, each pinned in its spec (src/clients/KEY/), as
 * users install them, and the oldest Claude Code we promise to work with. They are not dev
 * dependencies (about 1 GB with their native binaries); `npm run clients` installs them into a
 * cache folder, and CI does that in `.ci/run`.
 */
export const PINNED_CLIENTS: Readonly<Record<string, { pkg: string; version: string; bin: string }>> = {
  ...Object.fromEntries(
    (await loadClients()).map((c) => [
      c.key,
      { pkg: c.headless.package, version: c.headless.version, bin: c.headless.bin },
    ]),
  ),
  'claude-2.1.197': { pkg: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
};

/**
 * Libraries only some tests use, as users have them (the official SDKs, a browser driver):
 * pinned and installed beside the clients rather than as dev dependencies, which keeps a
 * fresh `npm ci` light (about 60 MB less).
 */
export const PINNED_LIBRARIES = {
  '@anthropic-ai/sdk': { pkg: '@anthropic-ai/sdk', version: '1.14.0' },
  openai: { pkg: 'openai', version: '6.49.0' },
  'playwright-core': { pkg: 'playwright-core', version: '1.64.1' },
  // Real MCP servers, for the gateway's end-to-end tests.
  '@modelcontextprotocol/server-everything': {
    pkg: '@modelcontextprotocol/server-everything',
    version: '2026.8.31',
    bin: 'mcp-server-everything',
  },
  '@modelcontextprotocol/server-filesystem': {
    pkg: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    bin: 'mcp-server-filesystem',
  },
  // The open-source Portkey gateway, for the gateways' end-to-end tests (its webhook mutator).
  '@portkey-ai/gateway': { pkg: '@portkey-ai/gateway', version: '1.15.2', bin: 'gateway' },
  // gRPC's xDS package: Envoy's protos (ext_proc among them) and, as its peer, grpc-js and
  // proto-loader, for the Envoy ext_proc test's client.
  '@grpc/grpc-js-xds': { pkg: '@grpc/grpc-js-xds', version: '1.14.1' },
} as const;

export type ClientKey = string;
export type LibraryKey = keyof typeof PINNED_LIBRARIES;
type Pinned = { pkg: string; version: string };

/** Where pinned clients are installed: `$SPILLWAY_CLIENTS_DIR`, else `.cache/clients` here. */
export function clientsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SPILLWAY_CLIENTS_DIR ?? join(ROOT, '.cache/clients');
}

const folderOf = (c: Pinned, env?: NodeJS.ProcessEnv) =>
  join(clientsDir(env), `${c.pkg.replace('/', '+')}@${c.version}`);

const notInstalled = (c: Pinned) =>
  `${c.pkg}@${c.version} is not installed; run "npm run clients" to install what the end-to-end tests use`;

/**
 * The pinned client's executable, or why it cannot run here (the test then skips with that
 * message).
 *
 * @example
 * const claude = clientBinary('claude'); // { path: '/repo/.cache/clients/@anthropic-ai+claude-code@2.1.332/node_modules/.bin/claude' }
 */
export function clientBinary(key: ClientKey): { path: string; version: string } | { missing: string } {
  const c = PINNED_CLIENTS[key];
  if (!c)
    return { missing: `no client "${key}" is pinned; pinned: ${Object.keys(PINNED_CLIENTS).join(', ')}` };
  const path = join(folderOf(c), 'node_modules/.bin', c.bin);
  if (!existsSync(path)) return { missing: notInstalled(c) };
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.status !== 0)
    return {
      missing: `${c.bin} ${c.version} --version failed here: ${(probe.stderr || String(probe.error)).trim().slice(0, 200)}`,
    };
  return { path, version: c.version };
}

/**
 * The pinned library's ES module namespace, or why it is missing (the test then skips with that
 * message).
 *
 * @example
 * const sdk = await pinnedLibrary('openai');
 * if ('module' in sdk) new (sdk.module.OpenAI as new (o: object) => unknown)({ apiKey: 'k' });
 */
export async function pinnedLibrary(
  key: LibraryKey,
): Promise<{ module: Record<string, unknown> } | { missing: string }> {
  const c = PINNED_LIBRARIES[key];
  const root = join(folderOf(c), 'node_modules', c.pkg);
  if (!existsSync(join(root, 'package.json'))) return { missing: notInstalled(c) };
  // The ES entry from the package's exports map: what `import` would pick.
  type Entry = string | { import?: Entry; default?: Entry };
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, Entry>;
  };
  let entry: Entry | undefined = manifest.exports['.'];
  while (entry && typeof entry !== 'string') entry = entry.import ?? entry.default;
  if (!entry) return { missing: `${c.pkg}@${c.version} has no ES module entry` };
  return { module: (await import(pathToFileURL(join(root, entry)).href)) as Record<string, unknown> };
}

/**
 * A pinned library's executable (the MCP servers'), or why it is missing.
 *
 * @example
 * const server = pinnedBin('@modelcontextprotocol/server-everything');
 * if ('path' in server) spawn(server.path, ['stdio']);
 */
export function pinnedBin(key: LibraryKey): { path: string } | { missing: string } {
  const c = PINNED_LIBRARIES[key];
  if (!('bin' in c)) return { missing: `${c.pkg} has no executable` };
  const path = join(folderOf(c), 'node_modules/.bin', c.bin);
  return existsSync(path) ? { path } : { missing: notInstalled(c) };
}

/**
 * Installs one pinned package into its cache folder (in a temporary folder first, then renamed,
 * so an interrupted install leaves nothing half-made).
 */
function installPinned(c: Pinned, done: string): void {
  const folder = folderOf(c);
  if (existsSync(join(folder, done))) return;
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

// `npm run clients [KEY...]`: installs the pinned clients and libraries (all by default) and
// checks each client runs.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const all: string[] = [...Object.keys(PINNED_CLIENTS), ...Object.keys(PINNED_LIBRARIES)];
  const keys = process.argv.length > 2 ? process.argv.slice(2) : all;
  let failed = 0;
  for (const key of keys) {
    const client = Object.hasOwn(PINNED_CLIENTS, key) ? PINNED_CLIENTS[key as ClientKey] : undefined;
    const library = Object.hasOwn(PINNED_LIBRARIES, key) ? PINNED_LIBRARIES[key as LibraryKey] : undefined;
    const c = client ?? library;
    if (!c) {
      console.error(`unknown client or library "${key}"; pinned: ${all.join(', ')}`);
      process.exit(2);
    }
    const started = Date.now();
    process.stderr.write(`installing ${c.pkg}@${c.version} into ${clientsDir()} ...\n`);
    try {
      if (client) {
        installPinned(client, join('node_modules/.bin', client.bin));
        const ok = clientBinary(key as ClientKey);
        if ('missing' in ok) throw new Error(ok.missing);
      } else installPinned(c, join('node_modules', c.pkg, 'package.json'));
      process.stderr.write(
        `  ${c.pkg} ${c.version} ready (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    } catch (err) {
      failed++;
      process.stderr.write(`  failed: ${(err as Error).message}\n`);
    }
  }
  process.exit(failed ? 1 : 0);
}
