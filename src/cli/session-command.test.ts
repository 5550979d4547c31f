import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../session/session.js';
import { cli } from '../test-support/cli.js';

async function sessionFile(): Promise<{ path: string; dir: string }> {
  const root = mkdtempSync(join(tmpdir(), 'sw-cli-session-'));
  const path = join(root, 's.jsonl');
  const s = await Session.open(path);
  await s.append({ role: 'user', content: 'go' });
  await s.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] });
  await s.append({ role: 'tool', toolCallId: 't1', toolName: 'Read', content: 'r'.repeat(5000) });
  await s.append({ role: 'tool', toolCallId: 't2', toolName: 'Bash', content: 'small' });
  await s.close();
  return { path, dir: join(root, 'tool-results') };
}

describe('spillway session', () => {
  it('show and prune --dry-run never write: a last line without newline stays, a missing log is not created', async () => {
    const { path, dir } = await sessionFile();
    appendFileSync(path, '{"seq":4,"op":{"type":"append"},"data":{"role":"user","content":"par');
    const before = readFileSync(path);
    const shown = await cli(['session', 'show', path]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toMatch(/left out line 5 .*no newline yet/);
    const dry = await cli(['session', 'prune', path, '--threshold', '1000', '--dry-run', '--dir', dir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/would replace seq 2/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    const missing = join(path, '..', 'missing.jsonl');
    const none = await cli(['session', 'show', missing]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no session log at .*missing\.jsonl/);
    expect(existsSync(missing)).toBe(false);
  });

  it('shows the events with sizes and shadowed-by, and prunes in place', async () => {
    const { path, dir } = await sessionFile();
    const shown = await cli(['session', 'show', path]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[0]).toMatch(/^seq +role +tool +size +op +shadowed-by$/);
    expect(shown.stdout).toMatch(/^ *2 +tool +Read +5000 +append *$/m);
    const prune = (...extra: string[]) =>
      cli([
        'session',
        'prune',
        path,
        '--threshold',
        '1000',
        '--head',
        '300',
        '--tail',
        '200',
        '--dir',
        dir,
        ...extra,
      ]);
    const dry = await prune('--dry-run');
    expect(dry.stdout).toBe(
      'would replace seq 2 (t1): 5000 -> 571 chars, as seq 4\nwould save 4429 chars in 1 tool result(s)\n',
    );
    expect(existsSync(dir)).toBe(false);
    const untouched = await Session.open(path);
    expect(untouched.events).toHaveLength(4);
    await untouched.close();
    const real = await prune();
    expect(real.stdout).toBe(
      'replaced seq 2 (t1): 5000 -> 571 chars, as seq 4\nsaved 4429 chars in 1 tool result(s)\n',
    );
    const after = await cli(['session', 'show', path, '--json']);
    const rows = JSON.parse(after.stdout);
    expect(rows[2]).toMatchObject({ seq: 2, shadowedBy: 4 });
    expect(rows[4]).toMatchObject({ seq: 4, role: 'tool', op: 'replace 2-3', shadowedBy: null });
    expect((await prune()).stdout).toBe('nothing to prune\n');
  });

  it('shows a session of 150,000 events (more rows than a call can take as arguments)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sw-cli-session-')), 'long.jsonl');
    const events = Array.from(
      { length: 150_000 },
      (_, seq) => `{"seq":${seq},"op":{"type":"append"},"data":{"role":"user","content":"turn ${seq}"}}\n`,
    );
    writeFileSync(path, events.join(''));
    const shown = await cli(['session', 'show', path]);
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.stdout.trimEnd().split('\n')).toHaveLength(150_001);
    expect(shown.stdout).toMatch(/^149999 +user +/m);
  });

  it('says what is wrong with bad usage or a bad file', async () => {
    expect((await cli(['session', 'frob', 'x'])).stderr).toMatch(
      /unknown session action "frob"; use show or prune/,
    );
    expect((await cli(['session'])).code).toBe(2);
    const { path } = await sessionFile();
    const bad = await cli(['session', 'prune', path, '--threshold', '100', '--head', '90', '--tail', '20']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/must fit in thresholdChars \(100\)/);
    // A threshold alone scales head and tail with it (1/2 and 1/8, as dsh's defaults are).
    const scaled = await cli(['session', 'prune', path, '--threshold', '2000', '--dry-run']);
    expect(scaled.code).toBe(0);
    expect(scaled.stdout).toMatch(/would replace seq 2 \(t1\): 5000 -> \d+ chars/);
  });
});
