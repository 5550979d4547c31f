import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { cli as run } from '../test-support/cli.js';
import { corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { o200kTokenizer } from '../text/tokenizers/bpe.js';

const cli = (argv: string[], stdin = '', tty = false) => run(argv, { stdin, tty });

const dir = mkdtempSync(join(tmpdir(), 'spillway-cli-'));
const logFile = join(dir, 'build.log');
const log = Array.from({ length: 2000 }, (_, i) => `[${i}] compiling module ${i} ... ok`).join('\n');
writeFileSync(logFile, log);

describe('spillway CLI', () => {
  it('prints help for the program and every command, and the version', async () => {
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/usage: spillway <command>/);
    expect(main.stdout).toMatch(/proxy for Anthropic, OpenAI \(Chat and Responses\) and Gemini clients/);
    // No command at all is bad usage: the help on standard error, exit 2.
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(main.stdout);
    for (const c of ['snip', 'tokens', 'models', 'demo', 'run', 'setup', 'doctor', 'hook']) {
      const r = await cli([c, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`usage: spillway ${c}`));
    }
    expect((await cli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('snips a file or standard input to the budget', async () => {
    const fromFile = await cli(['snip', '--bytes', '500', logFile]);
    expect(fromFile.code).toBe(0);
    expect(Buffer.byteLength(fromFile.stdout)).toBeLessThanOrEqual(500);
    expect(fromFile.stdout.startsWith('[0] compiling')).toBe(true);
    expect(fromFile.stdout.endsWith('[1999] compiling module 1999 ... ok')).toBe(true);
    const fromStdin = await cli(['snip', '--bytes', '500'], log);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    const tokens = await cli(['snip', '--tokens', '100', '--note', 'see build.log', logFile]);
    expect(o200kTokenizer.count(tokens.stdout)).toBeLessThanOrEqual(100);
    expect(tokens.stdout).toMatch(/\[\.\.\.snipped \d+ tokens\. see build\.log\]/);
    const chars = await cli(['snip', '--chars', '50'], 'é'.repeat(100));
    expect([...chars.stdout].length).toBeLessThanOrEqual(50);
    const small = await cli(['snip', '--bytes', '100'], 'short');
    expect(small.stdout).toBe('short');
  });

  it('counts tokens as a bare integer with each tokenizer', async () => {
    expect((await cli(['tokens'], 'hello world')).stdout).toBe('2\n');
    expect((await cli(['tokens', '--tokenizer', 'heuristic'], 'hello world')).stdout).toBe('3\n');
    expect((await cli(['tokens', '--tokenizer', 'cl100k', logFile])).stdout).toMatch(/^\d+\n$/);
    expect((await cli(['tokens'], '<|endoftext|>')).code).toBe(0);
  });

  it.skipIf(!corpusAvailable)(
    'tokens --tokenizer o200k agrees exactly with gpt-tokenizer on corpus files (needs ../shared/corpus)',
    async () => {
      for (const file of corpusFiles().slice(0, 6)) {
        const text = readFileSync(file, 'utf8');
        const r = await cli(['tokens', '--tokenizer', 'o200k', file]);
        expect(r.stdout, file).toBe(`${countTokens(text, { disallowedSpecial: new Set() })}\n`);
      }
    },
  );

  it('prints a model window and says when a name is unknown', async () => {
    const known = await cli(['models', 'openai/gpt-4o-2024-08-06']);
    expect(known.stdout).toMatch(/128000 tokens/);
    const unknown = await cli(['models', 'my-local-model']);
    expect(unknown.code).toBe(0);
    expect(unknown.stdout).toMatch(/not found in the model table; using the conservative default of 128000/);
    expect(JSON.parse((await cli(['models', '--json', 'gpt-5'])).stdout)).toEqual({
      name: 'gpt-5',
      limit: 400_000,
      found: true,
      matched: 'gpt-5',
    });
    expect((await cli(['models'])).stdout).toMatch(/claude-sonnet-4-5\s+200000/);
  });

  it('exits 2 with a clear message on bad usage, 1 on bad input', async () => {
    const cases: [string[], number, RegExp][] = [
      [['nope'], 2, /unknown command "nope"/],
      [['snip', '--bytes', 'ten'], 2, /--bytes needs a whole number, got "ten"/],
      [['snip', '--bytes=-5'], 2, /--bytes -5 is below the smallest budget, 48 bytes/],
      [['snip', '--bytes', '5', '--chars', '5'], 2, /give one budget, not --bytes and --chars/],
      [['snip', '--frobnicate'], 2, /Unknown option '--frobnicate'[\s\S]*spillway snip --help/],
      [['snip', '--head-ratio', '2', logFile], 2, /--head-ratio must be a number from 0 to 1/],
      [
        ['tokens', '--tokenizer', 'gpt2'],
        1,
        /unknown tokenizer "gpt2"; use one of: o200k, cl100k, heuristic/,
      ],
      [['snip', join(dir, 'missing.txt')], 1, /cannot read ".*missing\.txt": no such file/],
      [['snip', dir], 1, /it is a directory/],
    ];
    for (const [argv, code, message] of cases) {
      const r = await cli(argv, 'x');
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
    }
    const tty = await cli(['snip'], '', true);
    expect(tty.code).toBe(2);
    expect(tty.stderr).toMatch(/pass a FILE or pipe input in/);
  });

  it('runs as a real process: stdin in, stdout out, exit codes', () => {
    const entry = resolve(import.meta.dirname, '../cli.ts');
    const run = (args: string[], input?: string) =>
      spawnSync(process.execPath, ['--import', 'tsx', entry, ...args], { input, encoding: 'utf8' });
    const ok = run(['snip', '--bytes', '64'], 'x'.repeat(1000));
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/\[\.\.\.snipped 9\d\d bytes\.\.\.\]/);
    expect(Buffer.byteLength(ok.stdout)).toBeLessThanOrEqual(64);
    const bad = run(['snip', '--bytes']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/argument missing/);
    const demo = run(['demo', '--tokens', '300']);
    expect(demo.status).toBe(0);
    expect(demo.stdout).toMatch(/before: +\d+ tokens/);
    expect(demo.stdout).toMatch(/after: +(\d+) tokens/);
    const after = Number(/after: +(\d+) tokens/.exec(demo.stdout)?.[1]);
    expect(after).toBeLessThanOrEqual(300);
  });
});
