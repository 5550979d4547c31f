import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';

// replay reads files a person names; the wrong one (a link to a secret, a FIFO) must neither be
// read nor quoted, and nothing it prints may carry raw control bytes.
describe('spillway replay on files that are not transcripts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-replay-input-'));
  const secret = join(dir, 'shadow');
  writeFileSync(secret, 'root:*:19000:0:99999:7:::\nsecret-key-material\n');

  it('refuses a symbolic link, and says so without reading it', async () => {
    const link = join(dir, 'transcript.jsonl');
    symlinkSync(secret, link);
    const r = await cli(['replay', link]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is a symbolic link; give the file it points to/);
    expect(r.stderr + r.stdout).not.toContain('root:');
  });

  it('refuses a FIFO at once instead of waiting on it', async () => {
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['replay', fifo]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a regular file \(a FIFO/);
  });

  it('never quotes a file that does not start like JSON, and escapes control bytes in one that does', async () => {
    const r = await cli(['replay', secret]);
    expect(r.stderr).toMatch(/it does not start like JSON/);
    expect(r.stderr + r.stdout).not.toMatch(/root:|secret-key/);
    const noisy = join(dir, 'noisy.jsonl');
    writeFileSync(noisy, '{"type": "\u001b[2J\u001b]0;pwned\u0007"\n');
    const n = await cli(['replay', noisy]);
    expect(n.code).toBe(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking none gets out
    expect(n.stderr + n.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});
