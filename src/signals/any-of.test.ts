import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyOf } from './any-of.js';

// Marks of every shape anyOf handles: literal first characters (shared and not), escapes, a
// quantifier right after the first character, classes, groups, anchors, a line end, a mark
// that is one character, and characters past ASCII.
const MARKS = [
  'rror',
  'raceback',
  'r',
  'ERR!',
  'E: ',
  'ab+',
  'a+b',
  'x?y',
  '\\(\\d+\\)',
  '\\+\\+ ',
  '\\n[EF]\\d',
  '^E {2}',
  '^cu',
  '[✗✘]',
  '(?:ab|cd)e',
  '\\bfoo',
  '\\.x',
  'é!',
  '✗ok',
  ':\\d+:\\d+',
];

/** Every position where `finder` finds a match, trying each position in turn. */
function positions(finder: RegExp, text: string): number[] {
  const found: number[] = [];
  finder.lastIndex = 0;
  for (let m = finder.exec(text); m !== null; m = finder.exec(text)) {
    found.push(m.index);
    finder.lastIndex = m.index + 1;
  }
  return found;
}

describe('anyOf', () => {
  it('finds what the plain alternation finds', () => {
    const finder = anyOf(['rror', 'raceback', 'FAIL', '^E: '], 'gm');
    expect(positions(finder, 'ok\nTraceback\nE: no\nerror')).toEqual([4, 13, 20]);
  });

  it('property: matches at the same positions as the marks joined with |, on any text', () => {
    const text = fc
      .array(
        fc.constantFrom(
          'r',
          'ror',
          'E',
          ': ',
          'a',
          'b',
          'x',
          'y',
          '(12)',
          '++ ',
          '\n',
          'F3',
          ' ',
          'cu',
          '✗',
          'ok',
          'foo',
          '.',
          'é',
          '!',
          ':1:2',
          'cd',
          'e',
        ),
        { maxLength: 60 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.subarray(MARKS, { minLength: 1 }),
        text,
        fc.constantFrom('g', 'gm'),
        (marks, t, flags) => {
          expect(positions(anyOf(marks, flags), t)).toEqual(positions(new RegExp(marks.join('|'), flags), t));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
