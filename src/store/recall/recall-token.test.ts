import { chmodSync, chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recallTokenPath, userRecallToken } from './recall-token.js';

describe('the user recall token', () => {
  it('is made once, private, and the same for every proxy that starts at the same time', async () => {
    const env = { SPILLWAY_HOME: join(mkdtempSync(join(tmpdir(), 'sw-token-')), 'home') };
    const all = await Promise.all(Array.from({ length: 6 }, () => userRecallToken(env)));
    expect(new Set(all.map((t) => t.token)).size).toBe(1);
    expect(all[0]?.token).toMatch(/^[0-9a-f]{64}$/);
    expect(all[0]?.file).toBe(recallTokenPath(env));
    expect(statSync(recallTokenPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(env.SPILLWAY_HOME).mode & 0o777).toBe(0o700);
    expect((await userRecallToken(env)).token).toBe(all[0]?.token);
  });

  it('refuses a token file that does not hold a token, saying what to do', async () => {
    const env = { SPILLWAY_HOME: mkdtempSync(join(tmpdir(), 'sw-token-')) };
    writeFileSync(recallTokenPath(env), 'not a token', { mode: 0o600 });
    await expect(userRecallToken(env)).rejects.toThrow(/does not hold a spillway token; delete it/);
  });

  it('refuses a token others could read (it may be known to them), and makes a loose folder private', async () => {
    const env = { SPILLWAY_HOME: mkdtempSync(join(tmpdir(), 'sw-token-')) };
    chmodSync(env.SPILLWAY_HOME, 0o755);
    writeFileSync(recallTokenPath(env), `${'a'.repeat(64)}\n`, { mode: 0o644 });
    await expect(userRecallToken(env)).rejects.toThrow(
      /could be read by other users \(mode 644\), so it may be known to them; .*Remove it \(rm /,
    );
    expect(statSync(recallTokenPath(env)).mode & 0o777, 'left as it was, for the user to see').toBe(0o644);
    expect(statSync(env.SPILLWAY_HOME).mode & 0o777).toBe(0o700);
    rmSync(recallTokenPath(env));
    const fresh = await userRecallToken(env);
    expect(fresh.token).not.toBe('a'.repeat(64));
    expect(statSync(recallTokenPath(env)).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a token file another user owns (needs root to make one)',
    async () => {
      const env = { SPILLWAY_HOME: mkdtempSync(join(tmpdir(), 'sw-token-')) };
      writeFileSync(recallTokenPath(env), `${'b'.repeat(64)}\n`, { mode: 0o600 });
      chownSync(recallTokenPath(env), 65534, 65534);
      await expect(userRecallToken(env)).rejects.toThrow(/belongs to another user \(uid 65534\)/);
    },
  );
});
