import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR, corpusAvailable } from '../test-support/corpus.js';
import { buildCli, ROOT, startCliProxy, userMachine } from '../test-support/real-clients.js';
import { getTokenizer } from '../text/tokenizers/index.js';

// The README leads a newcomer: short, and every command in it works as written. This runs each
// shell line of the README in a user's machine (a temporary HOME, spillway on the PATH, a proxy
// where the README names one) and checks the before/after picture is what spillway prints.

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const README_PROXY = 'http://127.0.0.1:4747';

/** The lines of every ```sh block, comments cut, continuation lines joined. */
function shellLines(): string[] {
  return [...README.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] as string)
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

/** The build log of the README's picture: 6,000 lines, one compiler error at line 3,100. */
const BUILD_LOG = `for (let i = 1; i <= 6000; i++) console.log(i === 3100 ? "src/cart.c:412:9: error: use of undeclared identifier 'totl'" : '[' + String(i).padStart(4, '0') + '/6000] CC build/obj/module_' + (i % 97) + '/file_' + i + '.o -O2 -Wall -fPIC -Iinclude -Ithird_party/zlib -DNDEBUG');`;

beforeAll(() => buildCli(), 120_000);

describe('the README', () => {
  it('is short, starts with the two commands, and links only pages that exist', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(150);
    expect(shellLines().slice(0, 2)).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain('npm test');
    for (const [, link] of README.matchAll(/\]\(([^)#]+)\)/g))
      expect(existsSync(join(ROOT, link as string)), link).toBe(true);
  });

  it('shows what spillway really prints for the build log, with the real token counts', () => {
    const machine = userMachine({});
    const log = spawnSync(process.execPath, ['-e', BUILD_LOG], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    }).stdout;
    writeFileSync(join(machine.project, 'build.log'), log);
    const run = spawnSync('spillway', ['run', '--', 'cat', 'build.log'], {
      cwd: machine.project,
      env: machine.env,
      encoding: 'utf8',
    });
    const shown = run.stdout.split('\n');
    const picture = String(/```text\n([\s\S]*?)```/.exec(README)?.[1])
      .trimEnd()
      .split('\n');
    for (const line of picture) {
      if (line === '...') continue;
      // Lines are cut at 80 characters in the README; markers are shown whole, the store path as ~.
      // The marker names the store's path, whose length moves the cut by a line or two: marker
      // lines are compared with their numbers left out.
      const numbersOut = (text: string) => (text.startsWith('... (') ? text.replace(/\d+/g, 'N') : text);
      const real = numbersOut(line.replace('~/.spillway', join(machine.home, '.spillway')));
      expect(
        shown.some((s) => numbersOut(s) === real || (line.length === 80 && s.startsWith(line))),
        line,
      ).toBe(true);
    }
    const o200k = getTokenizer('o200k');
    const figures = /Under ([\d,]+) tokens \(o200k\) instead of ([\d,]+)/.exec(README);
    expect(o200k.count(run.stdout)).toBeLessThanOrEqual(Number(figures?.[1]?.replaceAll(',', '')));
    expect(Number(figures?.[2]?.replaceAll(',', ''))).toBe(o200k.count(log));
  });

  it('every shell command in it runs as written', async () => {
    const machine = userMachine({});
    const proxy = await startCliProxy(machine.env, 'http://127.0.0.1:9');
    try {
      writeFileSync(join(machine.project, 'Makefile'), 'test:\n\t@echo all tests passed\n');
      writeFileSync(join(machine.project, 'build.js'), BUILD_LOG);
      spawnSync('spillway', ['run', '--', 'node', 'build.js'], { cwd: machine.project, env: machine.env });
      if (corpusAvailable) {
        const transcripts = join(CORPUS_DIR, 'marot__spotter/test/fixtures/transcripts');
        const file = readFileSync(join(ROOT, 'package.json')) && transcripts;
        mkdirSync(join(machine.home, '.claude/projects/-work'), { recursive: true });
        copyFileSync(
          join(file, '8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl'),
          join(machine.home, '.claude/projects/-work/s.jsonl'),
        );
      }
      for (const line of shellLines()) {
        if (line.startsWith('npm ')) {
          // npm's own commands: the scripts they name exist (CI runs the test one; `npm link`
          // needs the bin it links).
          for (const [, script] of line.matchAll(/npm (?:run )?(start|test|[\w-]+)/g))
            if (script === 'link') expect(PACKAGE.bin.spillway).toBe('dist/cli.js');
            else if (script !== 'ci') expect(PACKAGE.scripts[script as string], line).toBeDefined();
          continue;
        }
        if (line.startsWith('spillway replay') && !corpusAvailable) {
          console.warn(
            `skipped "${line}": it needs a Claude Code transcript from ../shared/corpus, which is absent`,
          );
          continue;
        }
        const command = line.replaceAll(README_PROXY, proxy.url);
        const r = spawnSync('/bin/sh', ['-c', command], {
          cwd: machine.project,
          env: machine.env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(r.status, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
        if (line.startsWith('spillway expand'))
          expect(r.stdout).toContain("error: use of undeclared identifier 'totl'");
        if (line.startsWith('spillway run')) expect(r.stdout).toBe('all tests passed\n');
      }
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
