import { describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { MAIN_HELP } from './main.js';

// Read from the program's own help, so a command added later is checked too.
const COMMANDS = [...MAIN_HELP.matchAll(/^ {2}([a-z]+) +\S/gm)].map((m) => m[1] as string);
// An options row: two spaces, a flag spec (single spaces inside it), two or more spaces, text.
const ROW = /^ {2}(-\S(?:\S| (?! ))*)(?: {2,}(\S.*))?$/;

/** The options rows of a help, each with the column its description lines start in. */
function optionRows(help: string): { flag: string; columns: number[] }[] {
  const rows: { flag: string; columns: number[] }[] = [];
  for (const line of help.split('\n')) {
    const row = ROW.exec(line);
    const flag = row?.[1];
    if (flag) rows.push({ flag, columns: row[2] ? [line.indexOf(row[2], 2 + flag.length)] : [] });
    else if (/^ {3,}\S/.test(line)) rows.at(-1)?.columns.push(line.search(/\S/));
    // Anything else ends a run of rows: later indented lines are not continuations of them.
    else rows.push({ flag: '', columns: [] });
  }
  return rows.filter((r) => r.flag !== '');
}

describe('every command’s --help', () => {
  it('finds the commands in the program’s help', () => {
    expect(COMMANDS).toContain('collapse');
    expect(COMMANDS.length).toBeGreaterThan(15);
  });

  for (const command of COMMANDS) {
    it(`${command}: options aligned in one column, each named in the usage line`, async () => {
      const { code, stdout } = await cli([command, '--help'], { stdin: '', tty: true });
      expect(code).toBe(0);
      const usage = stdout.slice(0, stdout.indexOf('\n\n'));
      expect(usage).toMatch(new RegExp(`^usage: spillway ${command}\\b`));
      const rows = optionRows(stdout);
      expect(rows.map((r) => r.flag)).toContain('-h, --help');
      const columns = new Set(rows.flatMap((r) => r.columns));
      expect([...columns], `${command}: the columns descriptions start in`).toHaveLength(1);
      for (const { flag } of rows)
        for (const name of flag.match(/--[a-z][a-z-]*/g) ?? [])
          if (name !== '--help')
            expect(usage, `${command}: ${name} in the usage line`).toMatch(new RegExp(`${name}\\b`));
    });
  }
});
