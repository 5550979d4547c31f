import { constants } from 'node:fs';
import { lstat, open, opendir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

/** How often at most the spool folder is looked through (a stat of its stamp on other calls). */
export const SWEEP_EVERY_MS = 10 * 60_000;
/**
 * A spool untouched this long is left over: its hook never ran (a session ended with a command
 * still running in the background, Codex killed), or `head` stopped at its cap long ago.
 */
export const SPOOL_STALE_MS = 6 * 3_600_000;
/** The most entries one sweep looks at: the folder may be written by any command Codex runs. */
const SWEEP_MAX_ENTRIES = 10_000;

/**
 * Sets the stamp's time, making it if absent. The folder may be written by any command Codex
 * runs: a link there is not followed (O_NOFOLLOW) and a FIFO does not block (O_NONBLOCK, and
 * only a regular file is touched).
 */
async function touchStamp(stamp: string, at: Date): Promise<void> {
  const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = constants;
  const handle = await open(stamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600).catch(
    () => undefined,
  );
  if (!handle) return;
  try {
    if ((await handle.stat()).isFile()) await handle.utimes(at, at);
  } finally {
    await handle.close();
  }
}

/**
 * Removes spools left over in `dir` (a thread folder per Codex session, a file per call): each
 * file not written for SPOOL_STALE_MS, and a thread folder left empty. At most once every
 * SWEEP_EVERY_MS (a stamp file's time says when the last sweep was; one in the future counts as
 * none), links are removed, never followed, and one sweep looks at SWEEP_MAX_ENTRIES entries.
 * Returns how many files it removed.
 *
 * @example
 * await sweepCodexSpools(codexSpoolDir(env)); // 0 when a sweep ran in the last 10 minutes
 */
export async function sweepCodexSpools(dir: string, now = Date.now()): Promise<number> {
  const stamp = join(dir, '.swept');
  const last = await lstat(stamp).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  if (last !== undefined && last <= now && now - last < SWEEP_EVERY_MS) return 0;
  const at = new Date(now);
  await touchStamp(stamp, at);
  let seen = 0;
  let removed = 0;
  const stale = async (path: string) => {
    const s = await lstat(path).catch(() => undefined);
    return s !== undefined && now - s.mtimeMs > SPOOL_STALE_MS ? s : undefined;
  };
  const threads = await opendir(dir).catch(() => undefined);
  if (!threads) return 0;
  for await (const thread of threads) {
    if (++seen > SWEEP_MAX_ENTRIES) break;
    const path = join(dir, thread.name);
    if (!thread.isDirectory()) {
      if (thread.name !== '.swept' && (await stale(path))) removed += await gone(path);
      continue;
    }
    const calls = await opendir(path).catch(() => undefined);
    for await (const call of calls ?? []) {
      if (++seen > SWEEP_MAX_ENTRIES) break;
      if (await stale(join(path, call.name))) removed += await gone(join(path, call.name));
    }
    await rmdir(path).catch(() => {}); // only when it is empty
  }
  return removed;
}

const gone = (path: string) =>
  rm(path, { force: true }).then(
    () => 1,
    () => 0,
  );
