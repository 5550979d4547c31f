import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../store/backends/file-store.js';
import { stash } from '../store/stash.js';
import { cli } from '../test-support/cli.js';
import { stashId } from '../text/content-hash.js';
import { MIN_BUDGET } from '../text/min-budget.js';
import { getTokenizer } from '../text/tokenizers/index.js';

const newDir = () => join(mkdtempSync(join(tmpdir(), 'spillway-cli-store-')), 'tool-results');
const output = Array.from({ length: 5000 }, (_, i) => `${i}: fetched item ${i} — ok ✓`).join('\n');

describe('spillway cap / expand / prune', () => {
  it('caps standard input, saves the original, and expand gives it back exactly', async () => {
    const dir = newDir();
    const capped = await cli(
      ['cap', '--session', 'sess', '--call', 'call_1', '--bytes', '1000', '--dir', dir],
      { stdin: output },
    );
    expect(capped.code).toBe(0);
    expect(Buffer.byteLength(capped.stdout)).toBeLessThanOrEqual(1000);
    expect(capped.stdout).toContain(
      `saved to: ${join(dir, 'sess', 'call_1.txt')}; recall with spillway_expand id "sess/call_1"`,
    );
    expect(statSync(join(dir, 'sess', 'call_1.txt')).mode & 0o777).toBe(0o600);
    const all = await cli(['expand', 'sess/call_1', '--all', '--dir', dir]);
    expect(all.code).toBe(0);
    expect(all.raw.equals(Buffer.from(output))).toBe(true);
    // A page of about 4,000 tokens, ending on a line, with the totals and the next offset.
    const page = await cli(['expand', 'sess/call_1', '--dir', dir]);
    const footer =
      /\n\[bytes 0-(\d+) of (\d+); lines 1-(\d+) of (\d+); (\d+) tokens in all; call spillway_expand with offset (\d+) for the next page, or ask for lines "A-B" or grep a pattern\]\n$/.exec(
        page.stdout,
      );
    expect(footer).not.toBeNull();
    const [whole, end, total, , lines, tokens, next] = footer as unknown as string[];
    expect(Number(tokens)).toBe(getTokenizer('o200k').count(output));
    const footerLength = (whole as string).length;
    expect(Number(total)).toBe(Buffer.byteLength(output));
    expect(Number(lines)).toBe(output.split('\n').length);
    expect(next).toBe(end);
    expect(page.stdout.slice(0, -footerLength)).toBe(Buffer.from(output).subarray(0, Number(end)).toString());
    expect(page.stdout[page.stdout.length - footerLength - 1]).toBe('\n');
    const following = await cli(['expand', 'sess/call_1', '--offset', String(end), '--dir', dir]);
    expect(following.stdout).toMatch(
      new RegExp(`\\[bytes ${end}-\\d+ of \\d+; lines \\d+-\\d+ of ${lines}; `),
    );
  });

  it('prints {capped, id, path, bytes} with --json', async () => {
    const dir = newDir();
    const r = await cli(['cap', '--session', 's', '--call', 'c', '--bytes', '500', '--dir', dir, '--json'], {
      stdin: output,
    });
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({
      capped: true,
      id: 's/c',
      path: join(dir, 's', 'c.txt'),
      bytes: Buffer.byteLength(output),
      error: null,
    });
    expect(Buffer.byteLength(json.text)).toBeLessThanOrEqual(500);
    const small = JSON.parse(
      (await cli(['cap', '--session', 's', '--call', 'd', '--dir', dir, '--json'], { stdin: 'tiny' })).stdout,
    );
    expect(small).toMatchObject({ capped: false, id: null, path: null, bytes: 4, text: 'tiny' });
  });

  it('uses $SPILLWAY_HOME/tool-results when no --dir is given', async () => {
    const home = mkdtempSync(join(tmpdir(), 'spillway-home-'));
    const r = await cli(['cap', '--session', 's', '--call', 'c', '--bytes', '300'], {
      stdin: output,
      env: { SPILLWAY_HOME: home },
    });
    expect(r.code).toBe(0);
    expect(readFileSync(join(home, 'tool-results', 's', 'c.txt'), 'utf8')).toBe(output);
    expect((await cli(['expand', 's/c', '--all'], { env: { SPILLWAY_HOME: home } })).stdout).toBe(output);
  });

  it('still prints the capped text when the output cannot be saved, then exits 1', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spillway-cli-store-'));
    writeFileSync(join(root, 'tool-results'), 'not a directory');
    const r = await cli(
      ['cap', '--session', 's', '--call', 'c', '--bytes', '800', '--dir', join(root, 'tool-results')],
      { stdin: output },
    );
    expect(r.code).toBe(1);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(800);
    expect(r.stdout).toContain('could not be saved');
    expect(r.stderr).toMatch(/spillway: the full output could not be saved: /);
    const bad = await cli(
      ['cap', '--session', '../etc', '--call', 'c', '--bytes', '800', '--dir', newDir()],
      { stdin: output },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid session id "\.\.\/etc"/);
  });

  it('expands every id as a marker prints it, ids starting with "-" too, and greps and ranges', async () => {
    const dir = newDir();
    const store = new FileStore({ base: dir, pruneOnFirstSpill: false });
    // Find an original whose stash id starts with "-" (about one in 64 does).
    let original = '';
    let id = '';
    for (let n = 0; !id.startsWith('-'); n++) {
      original = `line one\nERROR number ${n}\nline three`;
      id = stashId(original);
    }
    await stash(store, original);
    for (const asPrinted of [id, `<<sw:${id}>>`]) {
      const all = await cli(['expand', asPrinted, '--all', '--dir', dir]);
      expect(all.code, asPrinted).toBe(0);
      expect(all.stdout).toBe(original);
    }
    const grep = await cli(['expand', id, '--grep', 'ERROR', '--context', '0', '--dir', dir]);
    expect(grep.stdout).toBe(`2:${original.split('\n')[1]}\n[grep "ERROR": 1 matching lines of 3]\n`);
    const lines = await cli(['expand', '--lines', '3', '--dir', dir, id]);
    expect(lines.stdout).toBe('3:line three\n[lines 3-3 of 3]\n');
    expect((await cli(['expand', '--', id, '--dir', dir])).code).toBe(2);
  });

  it('says clearly when an id is unknown or malformed, and when usage is wrong', async () => {
    const dir = newDir();
    const cases: [string[], number, RegExp][] = [
      [
        ['expand', 'nope/nothing', '--dir', dir],
        1,
        /no stored tool result with id "nope\/nothing"; do not retry/,
      ],
      [['expand', '../../etc/passwd', '--dir', dir], 1, /invalid/],
      [['expand', '--dir', dir], 2, /expand needs an ID/],
      [
        ['expand', 'a/b', '--all', '--offset', '3', '--dir', dir],
        2,
        /give one of --grep, --lines, --offset and --all, got --offset and --all/,
      ],
      [['cap', '--call', 'c'], 2, /cap needs --session S and --call C/],
      [
        ['cap', '--session', 's', '--call', 'c', '--bytes', '0'],
        2,
        /--bytes 0 is below the smallest budget, 48 bytes/,
      ],
      [['prune', '--keep', 'a/b', '--dir', dir], 1, /invalid session id "a\/b"/],
      [['prune', 'extra', '--dir', dir], 2, /prune takes no arguments/],
    ];
    for (const [argv, code, message] of cases) {
      const r = await cli(argv, { stdin: 'x' });
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
    expect(existsSync(dir)).toBe(false);
  });

  it('prune says what it removed (or would) and the bytes freed', async () => {
    const dir = newDir();
    await cli(['cap', '--session', 'old', '--call', 'c', '--bytes', '300', '--dir', dir], { stdin: output });
    await cli(['cap', '--session', 'cur', '--call', 'c', '--bytes', '300', '--dir', dir], { stdin: output });
    const past = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    utimesSync(join(dir, 'old', 'c.txt'), past, past);
    utimesSync(join(dir, 'cur', 'c.txt'), past, past);
    const size = Buffer.byteLength(output);
    const mib = (size / 1024 / 1024).toFixed(1);
    const dry = await cli(['prune', '--dir', dir, '--keep', 'cur', '--dry-run']);
    expect(dry.stdout).toBe(
      `would remove ${join(dir, 'old')} (${size} bytes, old session)\nwould free ${size} bytes (${mib} MiB); ${size} bytes (${mib} MiB) would remain\n`,
    );
    expect(existsSync(join(dir, 'old', 'c.txt'))).toBe(true);
    const real = await cli(['prune', '--dir', dir, '--keep', 'cur']);
    expect(real.stdout).toMatch(/^removed .*old \(\d+ bytes, old session\)\nfreed \d+ bytes/);
    expect(existsSync(join(dir, 'old'))).toBe(false);
    expect(existsSync(join(dir, 'cur', 'c.txt'))).toBe(true);
    const json = JSON.parse((await cli(['prune', '--dir', dir, '--json'])).stdout);
    expect(json.removed.map((r: { reason: string }) => r.reason)).toEqual(['old_session']);
    expect((await cli(['prune', '--dir', join(dir, 'missing')])).stdout).toMatch(/nothing to prune/);
  });

  it('property: for any input and budget, expand --all returns exactly the original bytes', async () => {
    const dir = newDir();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4000 }),
        fc.integer({ min: MIN_BUDGET.bytes, max: 600 }),
        async (input, bytes) => {
          const call = `c${n++}`;
          const capped = await cli(
            ['cap', '--session', 'p', '--call', call, '--bytes', String(bytes), '--dir', dir],
            { stdin: Buffer.from(input) },
          );
          expect(capped.code).toBe(0);
          expect(capped.raw.length).toBeLessThanOrEqual(bytes);
          if (input.length <= bytes && Buffer.byteLength(Buffer.from(input).toString('utf8')) <= bytes)
            return;
          const all = await cli(['expand', `p/${call}`, '--all', '--dir', dir]);
          expect(all.raw.equals(Buffer.from(input))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('spillway collapse', () => {
  it('collapses to the token budget, stashes the original, and expand recalls it by id or by tag', async () => {
    const dir = newDir();
    const r = await cli(['collapse', '--tokens', '300', '--dir', dir, '--json'], { stdin: output });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ action: 'acted', reason: null });
    expect(['line', 'char']).toContain(json.window);
    expect(json.tokensAfter).toBeLessThanOrEqual(300);
    expect(json.tokensBefore).toBeGreaterThan(300);
    expect(json.text).toContain(`<<sw:${json.id}>>`);
    expect((await cli(['expand', json.id, '--all', '--dir', dir])).stdout).toBe(output);
    expect((await cli(['expand', `<<sw:${json.id}>>`, '--all', '--dir', dir])).stdout).toBe(output);
    const plain = await cli(['collapse', '--tokens', '300', '--dir', dir], { stdin: output });
    expect(plain.stdout).toBe(json.text);
    const lines = await cli(
      ['collapse', '--tokens', '5000', '--head-lines', '3', '--tail-lines', '2', '--dir', dir, '--json'],
      { stdin: output },
    );
    expect(JSON.parse(lines.stdout)).toMatchObject({ action: 'acted', window: 'line' });
    const small = JSON.parse((await cli(['collapse', '--dir', dir, '--json'], { stdin: 'tiny' })).stdout);
    expect(small).toEqual({
      action: 'declined',
      reason: 'below_max_tokens',
      window: null,
      id: null,
      tokensBefore: 1,
      tokensAfter: 1,
      text: 'tiny',
    });
  });
});
