import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SpillwayError } from '../errors.js';
import { spillwayHome, writeFileAtomic } from '../home/index.js';
import type { KeptUpstreams } from '../store/index.js';
import type { FileEdit } from './setup-plan.js';
import { checkBackup, checkManifest, sha256, withSeal } from './setup-seal.js';

/** What setup wrote for one client, so `--undo` can put every file back. */
export interface Manifest {
  client: string;
  proxy?: string;
  /** The MCP servers setup runs through the gateway (absent: a setup from before they were kept). */
  mcp?: string[];
  /** The endpoints setup kept as the proxy's upstreams (undo points the client back at them). */
  kept?: KeptUpstreams;
  /** `sha`: the backup's sha256; `written`: what setup wrote (a seal's holder: with the placeholder). */
  files: { path: string; existed: boolean; backup?: string; sha?: string; written: string }[];
}
const readOr = (path: string): Buffer | undefined => (existsSync(path) ? readFileSync(path) : undefined);

/**
 * The store's atomic write (temp file, flush, rename), into a folder made when missing. A
 * settings file that is a link (into a dotfiles repository, say) stays one: its target is
 * written.
 */
async function writeAtomic(path: string, bytes: Buffer | string, mode: number): Promise<void> {
  const target = existsSync(path) ? realpathSync(path) : path;
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  await writeFileAtomic(dirname(target), basename(target), Buffer.from(bytes), { mode });
}

/** What an earlier setup of a client was given: its proxy and the MCP servers it wrapped. */
export interface SetupState {
  proxy?: string;
  /** Undefined for a setup from before spillway kept them (undo then unwraps every wrapped one). */
  mcp?: string[];
  /** The endpoints it kept as the proxy's upstreams. */
  kept?: KeptUpstreams;
}

/**
 * The manifest of `client`, checked against the seal in `holder` (the client's config file that
 * holds it; none for a client with no sandbox to fear): a manifest that does not match is refused.
 */
function readManifest(
  stateDir: string,
  client: string,
  holder: string | undefined,
): { manifest: Manifest; path: string } | undefined {
  const path = manifestPath(stateDir, client);
  const raw = readOr(path);
  if (!raw) return undefined;
  if (holder !== undefined) checkManifest(raw, path, holder, join(dirname(path), client));
  return { manifest: JSON.parse(raw.toString('utf8')) as Manifest, path };
}

const stateOf = (manifest: Manifest): SetupState => ({
  ...(manifest.proxy ? { proxy: manifest.proxy } : {}),
  ...(Array.isArray(manifest.mcp) ? { mcp: manifest.mcp.filter((n) => typeof n === 'string') } : {}),
  ...(manifest.kept ? { kept: manifest.kept } : {}),
});

/**
 * Whether setup ran for `client` here, and with what: checked against the seal in `holder` (see
 * sealHolder) when given, else as the manifest says (doctor's report, nothing written by it).
 *
 * @example
 * readSetup(stateDir, 'codex', holder); // { proxy: 'http://127.0.0.1:4747', mcp: [] }
 */
export function readSetup(stateDir: string, client: string, holder?: string): SetupState | undefined {
  const read = readManifest(stateDir, client, holder);
  return read && stateOf(read.manifest);
}

/**
 * The file of a client's that holds setup's seal (the edit marked `holdsSeal`), if any.
 *
 * @example
 * sealHolder(codexSetup(options)); // '/home/u/.codex/config.toml'
 */
export function sealHolder(edits: FileEdit[]): string | undefined {
  return edits.find((e) => e.holdsSeal)?.path;
}

/** One file's planned change. */
export interface PlannedFile {
  path: string;
  purpose: string;
  holdsSeal?: boolean;
  before: string | undefined;
  after: string;
}

/**
 * The text each file would have after setup (nothing is written). A file of spillway's that
 * setup would leave empty (nothing to keep in it) is not planned at all.
 *
 * @example
 * for (const f of planSetup(claudeSetup(options))) console.log(f.path, f.after);
 */
export function planSetup(edits: FileEdit[]): PlannedFile[] {
  const planned = new Map<string, string>();
  return edits
    .map((edit) => {
      const before = readOr(edit.path)?.toString('utf8');
      const after = edit.add(before ?? '', (p) => planned.get(p) ?? readOr(p)?.toString('utf8') ?? '');
      planned.set(edit.path, after);
      return {
        path: edit.path,
        purpose: edit.purpose,
        before,
        after,
        ...(edit.holdsSeal ? { holdsSeal: true } : {}),
      };
    })
    .filter((f) => f.before !== undefined || f.after !== '');
}

/**
 * Whether setup leaves a planned file as it is (its seal aside, which only the manifest changes).
 *
 * @example
 * planSetup(edits).filter(leavesAsItIs); // the files already set up
 */
export function leavesAsItIs(file: PlannedFile): boolean {
  return file.before !== undefined && (file.holdsSeal ? withSeal(file.before) : file.before) === file.after;
}

/**
 * Where setup keeps its manifests and the originals it backed up, for this HOME: two homes that
 * share one SPILLWAY_HOME never undo each other's files.
 */
export function setupStateDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  return join(spillwayHome(env), 'setup', createHash('sha256').update(home).digest('hex').slice(0, 16));
}

/** The manifest of `client`: in this HOME's folder, else where an earlier spillway kept it. */
function manifestPath(stateDir: string, client: string): string {
  const own = join(stateDir, `${client}.json`);
  const legacy = join(dirname(stateDir), `${client}.json`);
  return existsSync(own) || !existsSync(legacy) ? own : legacy;
}

/**
 * Refuses a file the user made read-only: setup and undo leave it as it is and say how to go on.
 */
function assertWritable(path: string): void {
  if (!existsSync(path)) return;
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o200) === 0)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${path} is read-only (mode ${mode.toString(8)}): spillway setup leaves it as it is. Make it writable (chmod u+w ${path}) and run the command again, or make the change by hand (docs/clients.md)`,
    );
}

/**
 * Writes the planned files, each original backed up once (a second setup keeps the first
 * backup, so undo always returns to before spillway), and seals the manifest in the file marked
 * `holdsSeal`. An earlier setup's manifest is used only when it matches its seal.
 *
 * @example
 * await applySetup('claude', planSetup(edits), { stateDir, proxy });
 */
export async function applySetup(
  client: string,
  files: PlannedFile[],
  options: { stateDir: string; proxy?: string; mcp?: readonly string[]; kept?: KeptUpstreams },
): Promise<void> {
  const holder = files.find((f) => f.holdsSeal);
  const earlier = readManifest(options.stateDir, client, holder?.path);
  const manifest: Manifest = earlier?.manifest ?? { client, files: [] };
  // Nothing is written unless every file can be: a read-only one stops setup before it starts.
  for (const file of files) if (file.after !== file.before) assertWritable(file.path);
  mkdirSync(join(options.stateDir, client), { recursive: true, mode: 0o700 });
  const backups: { path: string; bytes: Buffer }[] = [];
  for (const file of files) {
    let entry = manifest.files.find((f) => f.path === file.path);
    if (!entry) {
      const existed = file.before !== undefined;
      entry = { path: file.path, existed, written: '' };
      if (existed) {
        const bytes = readFileSync(file.path);
        entry.backup = join(options.stateDir, client, `${manifest.files.length}-${basename(file.path)}`);
        entry.sha = sha256(bytes);
        backups.push({ path: entry.backup, bytes });
      }
      manifest.files.push(entry);
    }
    entry.written = sha256(file.after);
  }
  if (options.proxy !== undefined) manifest.proxy = options.proxy;
  manifest.mcp = [...new Set([...(manifest.mcp ?? []), ...(options.mcp ?? [])])];
  if (options.kept && Object.keys(options.kept).length) manifest.kept = { ...options.kept, ...manifest.kept };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  for (const backup of backups) await writeAtomic(backup.path, backup.bytes, 0o600);
  await writeAtomic(join(options.stateDir, `${client}.json`), text, 0o600);
  for (const file of files) {
    const after = file.holdsSeal ? withSeal(file.after, sha256(text)) : file.after;
    if (after === file.before) continue;
    const mode = file.before !== undefined ? statSync(file.path).mode & 0o777 : 0o600;
    await writeAtomic(file.path, after, mode);
  }
  if (earlier && earlier.path !== join(options.stateDir, `${client}.json`))
    rmSync(earlier.path, { force: true });
}

/**
 * The manifest of `client` with every backup it names checked against the seal kept in the
 * client's config file (the edit marked `holdsSeal`): a mismatch is a clear error, and nothing
 * is written. Undefined when setup never ran for it.
 *
 * @example
 * verifySetup(stateDir, 'codex', codexSetup(options)); // throws SPILLWAY_TAMPERED when a backup changed
 */
export function verifySetup(
  stateDir: string,
  client: string,
  edits: FileEdit[],
): { manifest: Manifest; path: string } | undefined {
  const holder = sealHolder(edits);
  const read = readManifest(stateDir, client, holder);
  if (!read || holder === undefined) return read;
  for (const entry of read.manifest.files)
    if (entry.backup) checkBackup(entry.backup, entry.sha, read.path, join(dirname(read.path), client));
  return read;
}

/** What undo did to one file. */
export interface UndoneFile {
  path: string;
  /** restored: the original bytes are back; removed: the file did not exist before; edited: the
   * file changed since setup, so only spillway's entries were taken out. */
  how: 'restored' | 'removed' | 'edited' | 'unchanged';
}

/**
 * Puts back every file setup changed for `client`: byte for byte when the file is still what
 * setup wrote; when the client or the user changed it since, only spillway's entries are taken
 * out, their changes kept. A manifest or backup that does not match the seal in the client's
 * config file is refused before anything is written. Returns undefined when setup never ran for it.
 *
 * @example
 * await undoSetup('codex', (state) => codexSetup({ ...options, ...state }), { stateDir });
 */
export async function undoSetup(
  client: string,
  editsFor: (state: SetupState) => FileEdit[],
  options: { stateDir: string },
): Promise<UndoneFile[] | undefined> {
  const read = verifySetup(options.stateDir, client, editsFor({}));
  if (!read) return undefined;
  const { manifest, path } = read;
  const edits = editsFor(stateOf(manifest));
  // Only files setup itself edits for this client, from backups in setup's own folder: a
  // manifest that names anything else was not written by setup.
  const ours = manifest.files.filter(
    (f) =>
      edits.some((e) => e.path === f.path) &&
      (f.backup === undefined || dirname(dirname(f.backup)) === dirname(path)),
  );
  for (const entry of ours) assertWritable(entry.path);
  const done: UndoneFile[] = [];
  for (const entry of [...ours].reverse()) {
    const edit = edits.find((e) => e.path === entry.path);
    const bytes = readOr(entry.path);
    const current = bytes && edit?.holdsSeal ? Buffer.from(withSeal(bytes.toString('utf8'))) : bytes;
    if (current !== undefined && sha256(current) === entry.written) {
      if (entry.existed && entry.backup) {
        await writeAtomic(entry.path, readFileSync(entry.backup), statSync(entry.path).mode & 0o777);
        done.push({ path: entry.path, how: 'restored' });
      } else {
        unlinkSync(entry.path);
        done.push({ path: entry.path, how: 'removed' });
      }
      continue;
    }
    if (current === undefined || !edit) {
      done.push({ path: entry.path, how: 'unchanged' });
      continue;
    }
    const text = current.toString('utf8');
    const before = entry.backup ? readOr(entry.backup)?.toString('utf8') : entry.existed ? undefined : '';
    const after = edit.remove(text, before);
    if (after !== text) await writeAtomic(entry.path, after, statSync(entry.path).mode & 0o777);
    done.push({ path: entry.path, how: after !== text ? 'edited' : 'unchanged' });
  }
  rmSync(join(dirname(path), client), { recursive: true, force: true });
  rmSync(path, { force: true });
  return done.reverse();
}
