import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  open as openCallback,
  openSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { chmod, type FileHandle, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SpillwayError } from '../errors.js';

/** Temp files are hidden and end in `.tmp`, so no reader ever takes one for a finished body. */
export const TEMP_SUFFIX = '.tmp';
const WRITE_CHUNK = 1024 * 1024;

/**
 * The error for a symbolic link where spillway expects its own file or directory.
 *
 * @example
 * throw linkRefused('/base/sess');
 */
export function linkRefused(path: string, why = ''): SpillwayError {
  return new SpillwayError('SPILLWAY_IO', `refusing to follow the symbolic link ${path}${why}`);
}

/** An I/O failure on `path` as a SpillwayError (O_NOFOLLOW meeting a link: {@link linkRefused}). */
function ioError(what: string, path: string, err: unknown): SpillwayError {
  if (SpillwayError.isInstance(err)) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ELOOP') return linkRefused(path);
  const hint =
    e.code === 'ENOSPC'
      ? ' (the disk is full)'
      : e.code === 'EACCES' || e.code === 'EPERM'
        ? ' (permission denied)'
        : e.code === 'EDQUOT'
          ? ' (disk quota exceeded)'
          : '';
  return new SpillwayError('SPILLWAY_IO', `${what}: ${e.message}${hint}`, { cause: err });
}

/**
 * `lstat` that answers undefined for a missing path. Synchronous on purpose, for the few
 * metadata looks on a request's path: on a local disk the call takes 1-3 µs, while a trip through
 * the thread pool takes about 80 µs on a 2-core machine, and a small request made several.
 *
 * @example
 * lstatQuick('/no/such/dir'); // undefined
 */
export function lstatQuick(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch (err) {
    throw ioError(`cannot inspect ${path}`, path, err);
  }
}

/**
 * Makes `path` a private directory (0700): creates it (with parents when `parents`), refuses a
 * symbolic link, and tightens looser permissions it finds. True when it made the directory now.
 *
 * @example
 * await ensurePrivateDir('/home/me/.spillway/tool-results', { parents: true });
 */
export async function ensurePrivateDir(
  path: string,
  options: { parents?: boolean; allowLink?: boolean } = {},
): Promise<boolean> {
  // Look first: the directory is nearly always there, and a refused mkdir costs an exception.
  let info = lstatQuick(path);
  if (!info) {
    try {
      await mkdir(path, { recursive: options.parents ?? false, mode: 0o700 });
      // Made now, private: nothing to check.
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw ioError(`cannot create directory ${path}`, path, err);
    }
    info = lstatQuick(path);
    if (!info) throw new SpillwayError('SPILLWAY_IO', `cannot create directory ${path}: it vanished`);
  }
  if (info.isSymbolicLink() && !options.allowLink) {
    throw linkRefused(path, '; spillway only writes into directories it created');
  }
  if (!info.isSymbolicLink() && !info.isDirectory()) {
    throw new SpillwayError('SPILLWAY_IO', `${path} exists and is not a directory`);
  }
  if (!info.isSymbolicLink() && (info.mode & 0o077) !== 0) {
    try {
      await chmod(path, 0o700);
    } catch (err) {
      throw ioError(`cannot make ${path} private`, path, err);
    }
  }
  return false;
}

/**
 * Writes `body` to `dir/name` atomically: a hidden temp file (0600, or `mode`) is written in
 * chunks, flushed to disk (unless `durable: false`), then renamed over the final name. A crash
 * leaves at most a temp file, never half a body under the final name.
 *
 * @example
 * await writeFileAtomic('/base/sess', 'call.txt', Buffer.from('full output'));
 */
export async function writeFileAtomic(
  dir: string,
  name: string,
  body: Uint8Array,
  options: { durable?: boolean; mode?: number } = {},
): Promise<string> {
  const finalPath = join(dir, name);
  const tempPath = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(
      tempPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    for (let at = 0; at < body.length; at += WRITE_CHUNK) {
      await handle.write(body, at, Math.min(WRITE_CHUNK, body.length - at));
    }
    // A file that is not spillway's own (a client's settings) keeps the mode it had.
    if (options.mode !== undefined && options.mode !== 0o600) await handle.chmod(options.mode);
    if (options.durable !== false) await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tempPath, finalPath);
    return finalPath;
  } catch (err) {
    await handle?.close().catch(() => {});
    await unlink(tempPath).catch(() => {});
    throw ioError(`cannot write ${finalPath}`, finalPath, err);
  }
}

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Writes all of `body` at the end of the open file unless that takes it past `maxBytes`. */
function appendTo(fd: number, path: string, body: Uint8Array, maxBytes: number): boolean {
  const info = fstatSync(fd);
  if (!info.isFile()) throw new SpillwayError('SPILLWAY_IO', `${path} is not a regular file`);
  if (info.size + body.length > maxBytes) return false;
  for (let at = 0; at < body.length; ) at += writeSync(fd, body, at, body.length - at);
  return true;
}

/**
 * Appends `body` to the private file at `path` (created 0600; a symbolic link is refused) unless
 * that would take it past `maxBytes`; returns false then, writing nothing. For records of a few
 * hundred bytes written after every turn: to a file that exists, the append is synchronous (an
 * open, a write and a close take about 8 µs on a local disk, where the thread pool's callbacks
 * and promises would cost the event loop far more); creating the file costs the disk 100-400 µs
 * (measured), so that goes through the thread pool. With `O_APPEND`, the kernel puts each write
 * after every earlier one, whichever process made it.
 *
 * @example
 * await appendPrivate('/base/sess/fz_log.txt', Buffer.from('\n{"a":{}}'), 64 * 1024 * 1024); // true
 */
export async function appendPrivate(
  path: string,
  body: Uint8Array,
  maxBytes: number,
  options: { fresh?: boolean } = {},
): Promise<boolean> {
  let fd: number | undefined;
  try {
    // A log in a directory just made is not there yet: no synchronous try that would fail.
    if (!options.fresh) fd = openExisting(path);
    fd ??= await openFd(path, APPEND_FLAGS, 0o600);
    return appendTo(fd, path, body, maxBytes);
  } catch (err) {
    throw ioError(`cannot append to ${path}`, path, err);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const openFd = promisify(openCallback);

/** The file opened for appending, or undefined when it does not exist. */
function openExisting(path: string): number | undefined {
  try {
    return openSync(path, APPEND_FLAGS & ~constants.O_CREAT);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** A regular file opened for reading, or why it was not (`code`: the system's, when it said). */
export type OpenedFile = { handle: FileHandle; info: Stats } | { refused: string; code?: string };

/**
 * Opens a regular file for reading, or says why not: never through a symbolic link at the end
 * of the path, never a FIFO, socket or device (opened without blocking, so a FIFO with no
 * writer cannot hang the open). For paths a person, a client or a model names.
 *
 * @example
 * const file = await openRegularFile('/tmp/x.jsonl');
 * if ('refused' in file) console.error(file.refused);
 */
export async function openRegularFile(path: string): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const refused =
      code === 'ELOOP'
        ? 'it is a symbolic link; give the file it points to'
        : code === 'ENOENT'
          ? 'no such file'
          : String(code ?? (err as Error).message);
    return { refused, ...(code ? { code } : {}) };
  }
  const info: Stats = await handle.stat();
  if (info.isFile()) return { handle, info };
  await handle.close();
  return {
    refused: info.isDirectory()
      ? 'it is a directory'
      : 'it is not a regular file (a FIFO, a socket or a device)',
  };
}

/**
 * Opens a regular file for reading without following a symbolic link; null if it is absent.
 * Loose permissions found on it are tightened to 0600.
 */
export async function openPrivateForRead(path: string): Promise<Awaited<ReturnType<typeof open>> | null> {
  const opened = await openRegularFile(path);
  if ('refused' in opened) {
    if (opened.code === 'ENOENT' || opened.code === 'ENOTDIR') return null;
    if (opened.code === 'ELOOP') throw linkRefused(path);
    throw new SpillwayError('SPILLWAY_IO', `cannot read ${path}: ${opened.refused}`);
  }
  if ((opened.info.mode & 0o077) !== 0) await opened.handle.chmod(0o600).catch(() => {});
  return opened.handle;
}
