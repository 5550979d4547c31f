import { randomBytes } from 'node:crypto';
import { link, lstat, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SpillwayError } from '../../errors.js';
import { defaultBase, ensurePrivateDir, openPrivateForRead, writeFileAtomic } from '../../home/index.js';

const TOKEN = /^[0-9a-f]{64}$/;

/** Where the user's recall token lives: beside the default store, `~/.spillway/token`. */
export function recallTokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultBase(env)), 'token');
}

/** The token and its folder must be this user's alone: a token others can read guards nothing. */
async function assertOwnPrivate(
  path: string,
  info: { uid: number; mode: number },
  what: string,
): Promise<void> {
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${what} ${path} belongs to another user (uid ${info.uid}); spillway will not use it: remove it, or set SPILLWAY_HOME to a folder of your own`,
    );
  if ((info.mode & 0o077) !== 0)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `${what} ${path} can be read by other users (mode ${(info.mode & 0o777).toString(8)}) and could not be made private; run chmod 700 on the folder and 600 on the token, or remove it`,
    );
}

async function readToken(path: string): Promise<string | undefined> {
  // A token others could read may be known to them: it is refused, never made private and used.
  const before = await lstat(path).catch(() => undefined);
  if (before?.isFile() && (before.mode & 0o077) !== 0)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `the recall token ${path} could be read by other users (mode ${(before.mode & 0o777).toString(8)}), so it may be known to them; spillway will not use it. Remove it (rm ${path}) and start the proxy again: it makes a new one`,
    );
  const handle = await openPrivateForRead(path);
  if (!handle) return undefined;
  try {
    await assertOwnPrivate(path, await handle.stat(), 'the recall token');
    await assertOwnPrivate(dirname(path), await stat(dirname(path)), 'the folder of the recall token');
    const text = (await handle.readFile('utf8')).trim();
    if (!TOKEN.test(text))
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `${path} does not hold a spillway token; delete it to get a new one`,
      );
    return text;
  } finally {
    await handle.close();
  }
}

/**
 * The user's recall token: read from `~/.spillway/token` (0600, in a 0700 directory), created
 * there on first use. The proxy asks for it on /expand and /mcp, so on a shared machine other
 * local users, who cannot read the file, cannot recall this user's outputs. Created with a
 * link, so two proxies starting at once agree on one token.
 *
 * @example
 * const { token, file } = await userRecallToken();
 */
export async function userRecallToken(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ token: string; file: string }> {
  const file = recallTokenPath(env);
  const dir = dirname(file);
  // Made private first (when it is this user's), so an older, looser folder is fixed, not refused.
  await ensurePrivateDir(dir, { parents: true, allowLink: true });
  const existing = await readToken(file);
  if (existing) return { token: existing, file };
  const token = randomBytes(32).toString('hex');
  const temp = await writeFileAtomic(
    dir,
    `.token.${process.pid}.${randomBytes(4).toString('hex')}`,
    Buffer.from(`${token}\n`),
  );
  try {
    await link(temp, file);
    return { token, file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { token: (await readToken(file)) as string, file };
  } finally {
    await unlink(temp).catch(() => {});
  }
}
