import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyOf, anyPattern } from './any-of.js';
import { RULES } from './table.js';

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

describe('anyPattern', () => {
  const sources = RULES.map((r) => r.pattern.source);
  const joined = new RegExp(sources.map((s) => `(?:${s})`).join('|'));
  const fast = anyPattern(sources);

  it('splits alternatives at the top level only, anchored ones tried at the start', () => {
    const p = anyPattern(['^\\s*a(?:b|c)', 'x[|]y|^z', '(?:^|-)w']);
    expect(['  ab', 'ac', 'x|y', 'zz', '-w', 'w'].map((l) => p.test(l))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['b ab', 'xy', ' z', 'aw'].map((l) => p.test(l))).toEqual([false, false, false, false]);
  });

  it("property: on lines made of the rules' own examples, answers as the rules joined with |", () => {
    // Pieces of every example (their starts, their ends, whole), so anchored and unanchored
    // rules, lookbehinds and word edges all meet text that almost matches.
    const pieces = RULES.flatMap((r) => [...r.examples, ...(r.counterExamples ?? [])]).flatMap((e) => [
      e,
      e.slice(0, 6),
      e.slice(3),
      e.slice(-8),
    ]);
    const line = fc
      .array(fc.oneof(fc.constantFrom(...pieces), fc.constantFrom(' ', '  ', '0 ', ':', '-', '/', 'x')), {
        maxLength: 6,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(line, (l) => {
        expect(fast.test(l), l).toBe(joined.test(l));
      }),
      { numRuns: 3000 },
    );
  });
});
