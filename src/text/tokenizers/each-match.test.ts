import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trickyString } from '../../test-support/arbitraries.js';
import { eachMatch } from './each-match.js';

const all = (regex: RegExp, text: string) => {
  const out: [number, string][] = [];
  eachMatch(regex, text, (m) => void out.push([m.index, m[0]]));
  return out;
};

describe('eachMatch', () => {
  it('property: visits what matchAll gives, empty matches and surrogate pairs included', () => {
    const regexes = [
      /\p{L}+|\s+|./gu,
      /(?<=\p{L})(?=[^\p{L}\p{M}'])|(?<=\S)(?=\s)/gu,
      /(?:)/gu,
      /(?:)/g,
      /a*/g,
      /[\uD800-\uDBFF]?/g,
    ];
    fc.assert(
      fc.property(fc.constantFrom(...regexes), trickyString(40), (regex, text) => {
        const expected = [...text.matchAll(regex)].map((m): [number, string] => [m.index, m[0]]);
        expect(all(regex, text)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('stops when the visit says so, runs the regex it is given, and refuses a non-global one', () => {
    const regex = /\d+/g;
    const seen: string[] = [];
    eachMatch(regex, '1 22 333 4444', (m) => {
      seen.push(m[0]);
      return seen.length < 2;
    });
    expect(seen).toEqual(['1', '22']);
    expect(regex.lastIndex).toBe(4);
    expect(() => eachMatch(/\d/, '1', () => true)).toThrow(/global/);
  });
});
