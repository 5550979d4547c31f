import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lstatQuick, TEMP_SUFFIX } from '../../home/index.js';
import { idPartProblem, STASH_DIR } from '../ids.js';

/** A file spillway wrote: a body (`ID.txt`) or a temp file of an unfinished write. */
export interface OwnFile {
  name: string;
  path: string;
  bytes: number;
  mtimeMs: number;
  temp: boolean;
}

export interface DirScan {
  name: string;
  path: string;
  files: OwnFile[];
  bytes: number;
  /** Newest mtime of a file in it (the directory's own when it has none). */
  newestMs: number;
}

export interface BaseScan {
  sessions: DirScan[];
  stash: DirScan | null;
  /** Directories whose names are not session ids: spillway did not make them, and leaves them. */
  foreign: string[];
}

const BODY = /^[A-Za-z0-9_-]{1,128}\.txt$/;

/** Regular files spillway wrote in one directory; symbolic links and foreign files are ignored. */
export async function scanDir(path: string, name: string): Promise<DirScan | null> {
  let entries: import('node:fs').Dirent[];
  // A new session's directory is not there yet: the quick look answers that on a request's path.
  const own = lstatQuick(path);
  if (!own?.isDirectory()) return null;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const files: OwnFile[] = [];
  for (const entry of entries) {
    // Dirent types come from the directory itself, so a symbolic link is never followed here.
    if (!entry.isFile()) continue;
    const temp = entry.name.startsWith('.') && entry.name.endsWith(TEMP_SUFFIX);
    if (!temp && !BODY.test(entry.name)) continue;
    try {
      const info = await lstat(join(path, entry.name));
      if (info.isFile())
        files.push({
          name: entry.name,
          path: join(path, entry.name),
          bytes: info.size,
          mtimeMs: info.mtimeMs,
          temp,
        });
    } catch {
      // Removed while we looked: nothing to count.
    }
  }
  const bytes = files.reduce((n, f) => n + f.bytes, 0);
  // reduce, not Math.max(...): a stash of 130,000 files would overflow the stack as arguments.
  const newestMs = files.length ? files.reduce((m, f) => Math.max(m, f.mtimeMs), -Infinity) : own.mtimeMs;
  return { name, path, files, bytes, newestMs };
}

/**
 * Every session directory and the stash under `base`, with what spillway wrote in them.
 * A missing base is an empty one.
 */
export async function scanBase(base: string): Promise<BaseScan> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(base, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: [], stash: null, foreign: [] };
    throw err;
  }
  const sessions: DirScan[] = [];
  const foreign: string[] = [];
  let stash: DirScan | null = null;
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (entry.name !== STASH_DIR && idPartProblem(entry.name) !== null) {
      foreign.push(join(base, entry.name));
      continue;
    }
    const scan = await scanDir(join(base, entry.name), entry.name);
    if (!scan) continue;
    if (entry.name === STASH_DIR) stash = scan;
    else sessions.push(scan);
  }
  return { sessions, stash, foreign };
}

/** Bytes of every body and temp file under the base. */
export function totalBytes(scan: BaseScan): number {
  return scan.sessions.reduce((n, s) => n + s.bytes, scan.stash?.bytes ?? 0);
}
