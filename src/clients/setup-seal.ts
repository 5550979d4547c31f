import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { SpillwayError } from '../errors.js';

// Setup keeps its manifest and the originals it backed up under ~/.spillway, which a command in
// a client's sandbox can write whenever the client runs from a folder that holds it (Codex run
// from $HOME, say). The digest of the manifest (which holds each backup's digest) is therefore
// kept in the client's own config file, the one whose settings the client's sandbox must keep
// read-only for the sandbox to mean anything (Codex protects $CODEX_HOME inside its writable
// roots; Claude Code its settings files): undo and a second setup use nothing that does not
// match it.

/** What a holder's `add` writes where the seal goes; setup puts the real digest in its place. */
export const SEAL_PLACEHOLDER = `spillway-seal:${'0'.repeat(64)}`;
const SEAL = /spillway-seal:([0-9a-f]{64})/;

/**
 * The sha256 of some bytes, in hex.
 *
 * @example
 * sha256('a'); // 'ca978112…'
 */
export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * The seal in a holder's text (undefined when it holds none).
 *
 * @example
 * sealOf(`# ${SEAL_PLACEHOLDER}`); // '000…0'
 */
export function sealOf(text: string): string | undefined {
  return SEAL.exec(text)?.[1];
}

/**
 * `text` with its seal set to `seal` (the placeholder when none is given): the digest setup
 * records for the holder is of its text with the placeholder, so a new seal changes nothing else.
 *
 * @example
 * withSeal(`# ${SEAL_PLACEHOLDER}`, 'ab'.repeat(32)); // '# spillway-seal:abab…'
 */
export function withSeal(text: string, seal?: string): string {
  return text.replace(SEAL, seal === undefined ? SEAL_PLACEHOLDER : `spillway-seal:${seal}`);
}

const AFTER =
  'Nothing was changed. A command run in a sandbox that could write that folder may have done this: look at what changed, then take spillway out by hand (docs/clients.md lists every entry it adds) and remove';

/**
 * Refuses a manifest whose digest is not the seal in `holder` (the client's config file):
 * names what changed and what to do, and nothing is written.
 *
 * @example
 * checkManifest(readFileSync(manifest), manifest, '/home/u/.codex/config.toml', 'codex');
 */
export function checkManifest(raw: Buffer, manifest: string, holder: string, folder: string): void {
  const text = existsSync(holder) ? readFileSync(holder, 'utf8') : '';
  const seal = sealOf(text);
  if (seal === sha256(raw)) return;
  throw new SpillwayError(
    'SPILLWAY_TAMPERED',
    seal === undefined
      ? `${manifest} is not sealed: ${holder} holds no seal of spillway setup (an earlier spillway wrote it, or the line was taken out), so undo cannot trust the backups it names. ${AFTER} ${manifest} and ${folder}`
      : `${manifest} changed since setup wrote it (its sha256 is not the seal ${seal.slice(0, 12)}… kept in ${holder}). ${AFTER} ${manifest} and ${folder}`,
  );
}

/**
 * Refuses a backup whose bytes are not the ones setup backed up.
 *
 * @example
 * checkBackup('/home/u/.spillway/setup/ab/codex/2-config.toml', 'e3b0…', manifest, folder);
 */
export function checkBackup(
  backup: string,
  digest: string | undefined,
  manifest: string,
  folder: string,
): void {
  const bytes = existsSync(backup) ? readFileSync(backup) : undefined;
  if (bytes !== undefined && digest !== undefined && sha256(bytes) === digest) return;
  throw new SpillwayError(
    'SPILLWAY_TAMPERED',
    `${backup} ${bytes === undefined ? 'is gone' : 'changed since setup backed it up (its sha256 is not the one in the sealed manifest)'}: undo will not write it back. ${AFTER} ${manifest} and ${folder}`,
  );
}
