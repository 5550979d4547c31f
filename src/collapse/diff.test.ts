import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../text/tokenizers/index.js';
import { compactDiff } from './diff.js';

const o200k = getTokenizer('o200k');
const hasGit = spawnSync('git', ['--version']).status === 0;

/** A real `git diff` in a repository of `files` files, each changed every 40 of its 400 lines. */
function gitDiff(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'sw-diff-'));
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  const write = (changed: boolean) => {
    for (let f = 0; f < files; f++) {
      const lines = Array.from({ length: 400 }, (_, i) =>
        changed && i % 40 === 7
          ? `export const v${i} = ${i} * 2; // changed in ${f}`
          : `export const v${i} = ${i};`,
      );
      writeFileSync(join(dir, `module-${f}.ts`), `${lines.join('\n')}\n`);
    }
  };
  try {
    git('init', '-q');
    write(false);
    git('add', '.');
    git('commit', '-q', '-m', 'start');
    write(true);
    return git('diff', '--no-color').stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A real `git log -p` of three commits, each changing two files of 400 lines every 40 lines. */
function gitLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sw-diff-'));
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  const write = (f: number, scale: number) =>
    writeFileSync(
      join(dir, `m${f}.ts`),
      `${Array.from({ length: 400 }, (_, i) => (i % 40 === 7 && scale > 1 ? `export const v${i} = ${i} * ${scale};` : `export const v${i} = ${i};`)).join('\n')}\n`,
    );
  try {
    git('init', '-q');
    for (let f = 0; f < 4; f++) write(f, 1);
    git('add', '.');
    git('commit', '-q', '-m', 'start');
    for (let c = 2; c <= 4; c++) {
      write(c - 2, c);
      write(c - 1, c);
      git('commit', '-q', '-a', '-m', `scale constants by ${c}`);
    }
    return git('log', '-p', '--no-color', '-3').stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!hasGit)('diff window (needs git, to make real diffs)', () => {
  it('reads git log -p: each commit and its subject stay with the files it changed', () => {
    const log = gitLog();
    expect(log.match(/^commit /gm)).toHaveLength(3);
    for (const budget of [300, 600, 1500]) {
      const out = compactDiff(log, { budget, tokenizer: o200k, id: 'A'.repeat(22) });
      if (!out) throw new Error(`expected a diff window at ${budget}`);
      expect(o200k.count(out.text)).toBeLessThanOrEqual(budget);
      expect(out.text).toMatch(/^\[diff compacted: 6 files, \+60 -60 lines;/);
      expect(out.text).toContain('    scale constants by 4');
      if (budget >= 600) {
        for (const c of [2, 3]) expect(out.text).toContain(`    scale constants by ${c}`);
        expect(out.text.match(/^commit [0-9a-f]{40}$/gm)?.length).toBeGreaterThanOrEqual(3);
      }
    }
  });

  it('keeps every file and hunk header and the changed lines of each hunk first', () => {
    const diff = gitDiff(4);
    expect(o200k.count(diff)).toBeGreaterThan(3000);
    const out = compactDiff(diff, { budget: 1500, tokenizer: o200k, id: 'A'.repeat(22) });
    if (!out) throw new Error('expected a diff window');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1500);
    expect(o200k.count(out.text)).toBeGreaterThan(1350);
    const lines = out.text.split('\n');
    expect(lines[0]).toMatch(
      /^\[diff compacted: 4 files, \+40 -40 lines; \d+ of \d+ hunk lines shown; full output: spillway_expand <<sw:A{22}>>\]$/,
    );
    for (const header of diff.split('\n').filter((l) => l.startsWith('diff --git ') || l.startsWith('@@ ')))
      expect(lines).toContain(header);
    // The first line shown of a hunk is its first change, after a count of the unchanged lines.
    const first = lines.indexOf(diff.split('\n').find((l) => l.startsWith('@@ ')) as string);
    expect(lines[first + 1]).toBe('... (3 unchanged lines) ...');
    expect(lines[first + 2]).toBe('-export const v7 = 7;');
    expect(lines).not.toContain(diff.split('\n').find((l) => l.startsWith('index ')));
  });

  it('lists the files of a diff whose hunk headers do not fit, then shows as many as fit', () => {
    const diff = gitDiff(40);
    const out = compactDiff(diff, { budget: 1500, tokenizer: o200k, id: 'A'.repeat(22) });
    if (!out) throw new Error('expected a diff window');
    expect(o200k.count(out.text)).toBeLessThanOrEqual(1500);
    const lines = out.text.split('\n');
    for (let f = 0; f < 40; f++) expect(lines).toContain(`module-${f}.ts | +10 -10`);
    expect(lines).toContain('diff --git a/module-0.ts b/module-0.ts');
    // At a budget too small for the list, as much of it as fits, and a count of the rest.
    const tight = compactDiff(diff, { budget: 200, tokenizer: o200k, id: 'A'.repeat(22) });
    expect(o200k.count(tight?.text ?? '')).toBeLessThanOrEqual(200);
    expect(tight?.text).toMatch(/\n\.\.\. and \d+ more files$/);
  });
});

describe('diff window on what is not a diff throughout', () => {
  const diff = [
    'diff --git a/x.ts b/x.ts',
    'index 1..2 100644',
    '--- a/x.ts',
    '+++ b/x.ts',
    '@@ -1,2 +1,2 @@',
    '-a',
    '+b',
    ' c',
  ];
  it('declines a diff with other output after it, a hunk shorter than its header says, and prose', () => {
    const opts = { budget: 20, tokenizer: o200k, id: 'A'.repeat(22) };
    expect(compactDiff(`${diff.join('\n')}\n`, { ...opts, budget: 500 })).toBeDefined();
    expect(compactDiff(`${diff.join('\n')}\n FAIL src/x.test.ts\n`, opts)).toBeUndefined();
    expect(compactDiff(`${diff.slice(0, -1).join('\n')}\n`, opts)).toBeUndefined();
    expect(compactDiff('notes\n@@ not a hunk\n', opts)).toBeUndefined();
  });

  it('reads a plain diff -u, naming its files by their +++ lines', () => {
    const plain = [
      '--- old/x.ts\t2026-12-01',
      '+++ new/x.ts\t2026-12-01',
      '@@ -1,3 +1,3 @@',
      ' a',
      '-b',
      '+B',
      ' c',
    ];
    const text = Array.from({ length: 30 }, (_, i) =>
      plain.map((l) => l.replace('x.ts', `x${i}.ts`)).join('\n'),
    ).join('\n');
    const out = compactDiff(text, { budget: 120, tokenizer: o200k, id: 'A'.repeat(22) });
    expect(out?.text).toContain('new/x0.ts | +1 -1');
  });

  it('property: a generated diff is kept within any budget, with every file listed or counted', () => {
    const hunk = fc
      .array(fc.constantFrom(' same', '-gone', '+new', '+another new line with more words'), {
        minLength: 1,
        maxLength: 12,
      })
      .map((body) => {
        const before = body.filter((l) => l[0] !== '+').length;
        const after = body.filter((l) => l[0] !== '-').length;
        return [`@@ -1,${before} +1,${after} @@ fn()`, ...body];
      });
    const file = fc.tuple(fc.integer({ min: 0, max: 999 }), fc.array(hunk, { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 600 }),
        (files, budget) => {
          const text = files
            .map(([n, hunks], i) =>
              [
                `diff --git a/f${i}-${n}.ts b/f${i}-${n}.ts`,
                'index 1..2 100644',
                `--- a/f${i}-${n}.ts`,
                `+++ b/f${i}-${n}.ts`,
                ...hunks.flat(),
              ].join('\n'),
            )
            .join('\n');
          const out = compactDiff(text, { budget, tokenizer: o200k, id: 'A'.repeat(22) });
          if (out === undefined) return;
          expect(o200k.count(out.text)).toBeLessThanOrEqual(budget);
          const listed = files.filter((_, i) => out.text.includes(`f${i}-`)).length;
          const counted = Number(/\.\.\. and (\d+) more files$/.exec(out.text)?.[1] ?? 0);
          expect(listed + counted).toBe(files.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
