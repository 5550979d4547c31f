import { describe, expect, it } from 'vitest';
import { lineSignal } from './classify.js';
import { CANDIDATE, LIBRARY_FRAME, MIDDLE, PACKS, RULES } from './table.js';

/** Whether a global pre-filter finds a mark in `text`. */
const finds = (filter: RegExp, text: string) => {
  filter.lastIndex = 0;
  return filter.test(text);
};

// Generated from the table: one test per rule and per library path, named by its id, so a
// failure says which format broke.
for (const pack of PACKS) {
  describe(`signal pack ${pack.name}`, () => {
    for (const rule of pack.rules) {
      it(`${rule.id}: classifies its examples by its own id, none of its counter-examples, and the pre-filter finds each example`, () => {
        expect(rule.id.startsWith(`${pack.name}/`), 'the id starts with its pack').toBe(true);
        expect(rule.examples.length, 'at least one example').toBeGreaterThan(0);
        for (const example of rule.examples) {
          expect(lineSignal(example)?.id, example).toBe(rule.id);
          expect(finds(CANDIDATE, `compiled\n${example}\ncompiled`), `pre-filter: ${example}`).toBe(true);
          if (rule.middle || rule.middleWords) {
            const found =
              finds(MIDDLE, `compiled\n${example}\ncompiled`) ||
              (rule.middleWords ?? []).some((word) => example.includes(word));
            expect(found, `middle: ${example}`).toBe(true);
          }
        }
        // The search resumes at the start of a line: a mark that began with the line end
        // before it would be passed over.
        for (const mark of [...rule.marks, ...(rule.middle ?? []), ...(rule.middleWords ?? [])])
          expect(
            mark.startsWith('\\n') || mark.startsWith('\n'),
            `a mark starts with a line end: ${mark}`,
          ).toBe(false);
        for (const counter of rule.counterExamples ?? [])
          expect(rule.pattern.test(counter), counter).toBe(false);
      });
    }
    for (const path of pack.libraryPaths ?? []) {
      it(`${path.id}: marks its examples as library frames`, () => {
        const own = new RegExp(path.pattern);
        for (const example of path.examples) {
          expect(own.test(example), example).toBe(true);
          expect(lineSignal(example)?.kind, `a frame: ${example}`).toBe('frame');
        }
      });
    }
  });
}

describe('signal table', () => {
  it('has one rule per id, each in one pack', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(PACKS.reduce((n, p) => n + p.rules.length, 0));
  });

  it("tries a format's rule before core's, and a more important kind before a less", () => {
    // A line both python/test-summary and core/counts match is python's.
    expect(lineSignal('======== 2 passed in 0.12s ========')?.id).toBe('python/test-summary');
    // An exception's name outranks the word "error" in it.
    expect(lineSignal('ValueError: error reading the file')?.id).toBe('core/exception-name');
  });

  it('marks no frame of the program itself as a library frame', () => {
    for (const own of [
      '    at charge (/app/src/pay.js:88:11)',
      '  File "/app/pay.py", line 88, in charge',
      '\t/srv/shop/main.go:27 +0x16c',
    ])
      expect(LIBRARY_FRAME.test(own), own).toBe(false);
  });
});
