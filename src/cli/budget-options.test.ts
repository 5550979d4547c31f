import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collapse } from '../collapse/index.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { cli } from '../test-support/cli.js';
import { MIN_BUDGET } from '../text/index.js';
import { getTokenizer } from '../text/tokenizers/index.js';

const dir = mkdtempSync(join(tmpdir(), 'spillway-budget-'));
const log = Array.from({ length: 3000 }, (_, i) => `[${i}] step ${i} ok`).join('\n');

describe('budget flags are checked when the command starts', () => {
  // Every command that takes a budget, each budget flag it takes, a value below the floor.
  const cases: [string[], string][] = [
    [['collapse', '--tokens', '0'], '--tokens 0 is below the smallest budget, 100 tokens'],
    [['collapse', '--tokens', '10'], '--tokens 10 is below the smallest budget, 100 tokens'],
    [['collapse', '--tokens', '-5'], '--tokens -5 is below the smallest budget, 100 tokens'],
    [['collapse', '--tokens=-5'], '--tokens -5 is below the smallest budget, 100 tokens'],
    [['explain', '--tokens', '99'], '--tokens 99 is below the smallest budget, 100 tokens'],
    [['demo', '--tokens', '-1'], '--tokens -1 is below the smallest budget, 100 tokens'],
    [['snip', '--tokens', '10'], '--tokens 10 is below the smallest budget, 100 tokens'],
    [['snip', '--bytes', '-7'], '--bytes -7 is below the smallest budget, 48 bytes'],
    [['snip', '--chars', '5'], '--chars 5 is below the smallest budget, 48 chars'],
    [['cap', '--session', 's', '--call', 'c', '--bytes', '-1', '--dir', dir], '--bytes -1 is below'],
    [['gateway', '--tokens', '-20', '--', 'true'], '--tokens -20 is below the smallest budget'],
  ];
  for (const [argv, message] of cases)
    it(`refuses ${argv.join(' ')} with its own message (exit 2)`, async () => {
      const r = await cli(argv, { stdin: log });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toMatch(/give --(tokens|bytes|chars) \d+ or more/);
      expect(r.stderr).not.toMatch(/ambiguous/);
      expect(r.stdout).toBe('');
    });

  it('refuses a budget before running the command (spillway run)', async () => {
    const marker = join(dir, 'ran');
    const r = await cli(['run', '--tokens', '-3', '--', 'touch', marker]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tokens -3 is below the smallest budget, 100 tokens');
    expect(existsSync(marker)).toBe(false);
  });

  it('passes a negative number after -- to the command as it is', async () => {
    const r = await cli(['run', '--', 'echo', '-5']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('-5');
  });

  it('says what a non-number is, and takes the floor itself', async () => {
    expect((await cli(['collapse', '--tokens', 'lots'], { stdin: log })).stderr).toContain(
      '--tokens needs a whole number, got "lots"',
    );
    const r = await cli(['collapse', '--tokens', String(MIN_BUDGET.tokens), '--dir', dir], { stdin: log });
    expect(r.code).toBe(0);
    expect(getTokenizer('o200k').count(r.stdout)).toBeLessThanOrEqual(MIN_BUDGET.tokens);
  });
});

describe('the smallest token budget', () => {
  // The floor is what a marker needs beside a line: at it, every window collapse can choose
  // (lines, a character window, JSON with its header) stays within the budget.
  const texts: Record<string, string> = {
    'a log': log,
    'one long line': 'x7 '.repeat(20_000),
    'a line of wide characters': '漢字かな'.repeat(5000),
    JSON: JSON.stringify({ items: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n${i}` })) }),
    'JSON with a log in a string': JSON.stringify({
      exitCode: 2,
      stdout: log,
      stderr: 'make: *** [all] Error 2\n',
    }),
  };
  for (const [name, text] of Object.entries(texts))
    it(`${name}: collapsed within ${MIN_BUDGET.tokens} tokens, with a recall id`, async () => {
      for (const tokenizer of ['o200k', 'cl100k', 'heuristic']) {
        const out = await collapse(text, { tokens: MIN_BUDGET.tokens, store: new MemoryStore(), tokenizer });
        expect(out.collapsed).toBe(true);
        expect(getTokenizer(tokenizer).count(out.text), tokenizer).toBeLessThanOrEqual(MIN_BUDGET.tokens);
        expect(out.text).toMatch(/<<sw:[\w-]+>>/);
      }
    });
});
