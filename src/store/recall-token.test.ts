import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
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
});
