import { randomBytes } from 'node:crypto';
import { link, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SpillwayError } from '../errors.js';
import { defaultBase } from './default-base.js';
import { ensurePrivateDir, openPrivateForRead, writeFileAtomic } from './private-fs.js';

const TOKEN = /^[0-9a-f]{64}$/;

/** Where the user's recall token lives: beside the default store, `~/.spillway/token`. */
export function recallTokenPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(defaultBase(env)), 'token');
}

async function readToken(path: string): Promise<string | undefined> {
  const handle = await openPrivateForRead(path);
  if (!handle) return undefined;
  try {
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
  const existing = await readToken(file);
  if (existing) return { token: existing, file };
  const dir = dirname(file);
  await ensurePrivateDir(dir, { parents: true, allowLink: true });
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
